"""The artifact-version projection: a pure fold over an artifact log's events.

`fold_artifact_event(view, event) -> view` is the only place the numbering rules live:

* each filename's versions are numbered 0, 1, 2, … in the order they were recorded;
* a deletion hides every version recorded so far; numbering continues after it, so a
  version number (as kept in an event's ``artifact_delta``) never names two contents;
* a saved version names its bytes by sha256; the bytes live in a blob store.

No I/O and no clock: the artifact log aggregate applies its events through this fold, and a
read model may fold the same events. (This module may move to ``projections/``.)
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Optional, Union

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from domain.state import USER_PREFIX, is_user_scoped

TEXT = "text"  # a Part(text=...): its bytes are the UTF-8 text
BYTES = "bytes"  # a Part(inline_data=...)


@dataclass(frozen=True)
class VersionRecord:
    """One saved version of one filename: what its event records (never the bytes)."""

    filename: str
    version: int
    sha256: str
    size: int
    mime_type: str
    kind: str = BYTES
    create_time: float = 0.0
    custom_metadata: dict[str, Any] = field(default_factory=dict)
    display_name: Optional[str] = None
    copied_from: Optional[int] = None  # set when the version restores (re-references) an earlier one


@dataclass(frozen=True)
class ArtifactSaved:
    record: VersionRecord


@dataclass(frozen=True)
class ArtifactDeleted:
    filename: str
    deleted_time: float = 0.0


ArtifactEvent = Union[ArtifactSaved, ArtifactDeleted]


@dataclass
class FileVersions:
    """Every version of one filename ever recorded; those before `live_from` are deleted."""

    versions: list[VersionRecord] = field(default_factory=list)
    live_from: int = 0

    @property
    def next_version(self) -> int:
        return len(self.versions)

    def live(self) -> list[VersionRecord]:
        return self.versions[self.live_from:]


ArtifactView = dict[str, FileVersions]


def fold_artifact_event(view: ArtifactView, event: ArtifactEvent) -> ArtifactView:
    """Folds one event into `view` (updated in place and returned)."""
    if isinstance(event, ArtifactSaved):
        record = event.record
        file = view.setdefault(record.filename, FileVersions())
        if record.version != file.next_version:
            raise ValueError(
                f"Artifact {record.filename!r}: version {record.version} recorded where "
                f"{file.next_version} was next; the log is out of order."
            )
        file.versions.append(record)
    elif isinstance(event, ArtifactDeleted):
        file = view.get(event.filename)
        if file is not None:
            file.live_from = len(file.versions)
    else:  # pragma: no cover - a new event type must be added here
        raise TypeError(f"Unknown artifact event {event!r}")
    return view


def fold_all(events: list[ArtifactEvent], view: Optional[ArtifactView] = None) -> ArtifactView:
    view = {} if view is None else view
    for event in events:
        fold_artifact_event(view, event)
    return view


def live_filenames(view: ArtifactView) -> list[str]:
    return sorted(name for name, file in view.items() if file.live())


def file_key(view: ArtifactView, filename: str, *, user_scope: bool) -> str:
    """The name `filename` is kept under in its scope's view. In the user's scope a file answers to
    its name with or without ``user:``, as in ADK's file service, so a file saved without a
    session loads from any session as ``user:<name>``: new files are kept under the prefixed name,
    and one saved under the bare name (by an earlier Chronicle) keeps answering to both."""
    if not user_scope:
        return filename
    bare = filename[len(USER_PREFIX):] if is_user_scoped(filename) else filename
    prefixed = USER_PREFIX + bare
    return bare if prefixed not in view and bare in view else prefixed


def find_version(view: ArtifactView, filename: str, version: Optional[int], *, include_deleted: bool = False) -> Optional[VersionRecord]:
    """The given version (the newest live one when None), or None."""
    file = view.get(filename)
    if file is None:
        return None
    if version is None:
        live = file.live()
        return live[-1] if live else None
    if not isinstance(version, int) or version < 0 or version >= len(file.versions):
        return None
    if version < file.live_from and not include_deleted:
        return None
    return file.versions[version]


class ArtifactVersion(BaseModel):
    """ADK's metadata of one artifact version, plus the content hash and size."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)

    version: int
    canonical_uri: str
    custom_metadata: dict[str, Any] = Field(default_factory=dict)
    # ADK's default for a version built by hand (a service of one's own); the fold never builds one.
    create_time: float = Field(default_factory=time.time)
    mime_type: Optional[str] = None
    sha256: Optional[str] = None
    size: Optional[int] = None
