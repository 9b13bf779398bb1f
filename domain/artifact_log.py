"""The artifact log: one event-sourced aggregate per artifact scope (a session, or a user).

Its events record which version of which filename was saved (sha256, size, MIME type,
metadata) or deleted — never bytes. Its state is the version projection of
`domain.artifact_versions`, applied through the same pure fold. Version numbers come
from that state and the append is guarded by the aggregate's version (optimistic
concurrency), so two concurrent saves of one file can never both get the same number.
The log is hash-chained like every log (``domain.chained``).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Optional

from domain.artifact_names import ArtifactScope
from domain.artifact_versions import (
    ArtifactDeleted,
    ArtifactSaved,
    ArtifactView,
    VersionRecord,
    fold_artifact_event,
)
from domain.chained import ChainedAggregate


class ArtifactLog(ChainedAggregate):
    TOPIC = "chronicle:ArtifactLog"

    class Created(ChainedAggregate.Created):
        TOPIC = "chronicle:ArtifactLog.Created"
        app_name: str
        user_id: str
        session_id: Optional[str]

    class Chained(ChainedAggregate.Chained):
        TOPIC = "chronicle:ArtifactLog.Chained"

    class Saved(Chained):
        """A new version of `filename`: its number, content hash, size and type."""

        TOPIC = "chronicle:ArtifactLog.Saved"
        filename: str
        version: int
        sha256: str
        size: int
        mime_type: str
        kind: str
        create_time: float
        custom_metadata: dict[str, Any]
        display_name: Optional[str]
        copied_from: Optional[int]

        def apply(self, log: ArtifactLog) -> None:
            record = VersionRecord(
                filename=self.filename,
                version=self.version,
                sha256=self.sha256,
                size=self.size,
                mime_type=self.mime_type,
                kind=self.kind,
                create_time=self.create_time,
                custom_metadata=self.custom_metadata,
                display_name=self.display_name,
                copied_from=self.copied_from,
            )
            fold_artifact_event(log.view, ArtifactSaved(record))

    class Deleted(Chained):
        """Every version of `filename` so far is deleted (the bytes stay until a purge)."""

        TOPIC = "chronicle:ArtifactLog.Deleted"
        filename: str
        deleted_time: float

        def apply(self, log: ArtifactLog) -> None:
            fold_artifact_event(log.view, ArtifactDeleted(self.filename, self.deleted_time))

    def __init__(self, app_name: str, user_id: str, session_id: Optional[str]):
        self.app_name = app_name
        self.user_id = user_id
        self.session_id = session_id
        self.view: ArtifactView = {}

    @classmethod
    def start(cls, scope: ArtifactScope) -> ArtifactLog:
        return cls._start(
            cls.Created,
            scope.log_id,
            app_name=scope.app_name,
            user_id=scope.user_id,
            session_id=scope.session_id,
        )

    def next_version(self, filename: str) -> int:
        file = self.view.get(filename)
        return 0 if file is None else file.next_version

    def save_version(self, record: VersionRecord) -> None:
        self._append(self.Saved, **dataclasses.asdict(record))

    def delete(self, filename: str, deleted_time: float) -> None:
        self._append(self.Deleted, filename=filename, deleted_time=deleted_time)


ARTIFACT_TOPICS = (ArtifactLog.Created.TOPIC, ArtifactLog.Saved.TOPIC, ArtifactLog.Deleted.TOPIC)
