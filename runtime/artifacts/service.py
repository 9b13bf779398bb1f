"""The artifact service over the log: ADK's API, one implementation for every store.

Versions are events of an `ArtifactLog` (one per session, one per user for ``user:``
names); bytes go to a content-addressed blob store in the same database (files under
the root for `FileArtifactService`). `load_artifact` checks every byte against the
recorded sha256.
"""

from __future__ import annotations

import dataclasses
import json
import random
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Optional
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError
from eventsourcing.persistence import IntegrityError
from google.genai import types

from domain.errors import InvalidArgumentError, StoreError
from domain.state import check_json_value
from domain.validation import check_ids
from runtime.artifacts.artifact_util import is_artifact_ref
from runtime.artifacts.base import BaseArtifactService, ensure_part
from runtime.stores.blobs import BlobStore, FileBlobStore, check_blob, store_bytes
from domain.artifact_log import ArtifactLog
from domain.artifact_names import ArtifactScope, artifact_scope
from domain.artifact_versions import (
    BYTES,
    TEXT,
    ArtifactVersion,
    VersionRecord,
    file_key,
    find_version,
    live_filenames,
)
from runtime.stores import Store, open_store, postgres_store, service_from_url, sqlite_store

DEFAULT_MAX_ARTIFACT_BYTES = 64 * 1024 * 1024
SAVE_ATTEMPTS = 64  # optimistic-concurrency retries before a save gives up

@dataclass(frozen=True)
class _Content:
    """A Part made ready to store: its bytes and what the version event records."""

    data: Optional[bytes]  # None for a reference to an existing version
    kind: str
    mime_type: str
    display_name: Optional[str] = None
    reference: Optional[tuple[ArtifactScope, str, int]] = None  # (scope, filename, version)


class _StoreLocks:
    """One lock per artifact log per store: the aggregate cache is shared by every service on
    a store, so in-process writers of one log take turns instead of clashing."""

    def __init__(self) -> None:
        self._locks: dict[UUID, threading.Lock] = {}
        self._guard = threading.Lock()

    def get(self, log_id: UUID) -> threading.Lock:
        lock = self._locks.get(log_id)
        if lock is None:
            with self._guard:
                lock = self._locks.setdefault(log_id, threading.Lock())
        return lock


class LogArtifactService(BaseArtifactService):
    """Artifacts as event-sourced version logs plus content-addressed blobs, in one store.

    Give it the Store a session service uses (``LogArtifactService(session_service.store)``)
    to keep sessions and artifacts in one database.
    """

    def __init__(
        self,
        store: Store,
        *,
        blobs: Optional[BlobStore] = None,
        max_artifact_bytes: int = DEFAULT_MAX_ARTIFACT_BYTES,
        owns_store: bool = False,
    ):
        if not isinstance(max_artifact_bytes, int) or max_artifact_bytes < 0:
            raise InvalidArgumentError(f"max_artifact_bytes must be a non-negative int, got {max_artifact_bytes!r}")
        self.store = store
        self.blobs: BlobStore = blobs if blobs is not None else store.blob_store()
        self.max_artifact_bytes = max_artifact_bytes
        self._owns_store = owns_store
        self._application = store.application
        self._locks = store.owned("artifact log locks", _StoreLocks)

    # -- ADK API -----------------------------------------------------------------------

    async def save_artifact(
        self,
        *,
        app_name: str,
        user_id: str,
        filename: str,
        artifact: types.Part | dict[str, Any],
        session_id: Optional[str] = None,
        custom_metadata: Optional[dict[str, Any]] = None,
    ) -> int:
        """Stores a new version of `filename` and returns its number (0 for the first)."""
        scope = artifact_scope(app_name, user_id, filename, session_id)
        content = self._content(ArtifactScope(app_name, user_id, session_id), filename, artifact)
        metadata = _check_metadata(custom_metadata)
        return await self.store.call(self._save, scope, filename, content, metadata)

    async def load_artifact(
        self,
        *,
        app_name: str,
        user_id: str,
        filename: str,
        session_id: Optional[str] = None,
        version: Optional[int] = None,
    ) -> Optional[types.Part]:
        """The given version of `filename` (the newest when None), or None when there is none.
        Raises ArtifactIntegrityError when the stored bytes do not match the recorded hash."""
        scope = artifact_scope(app_name, user_id, filename, session_id)
        _check_version(version)
        return await self.store.call(self._load_part, scope, filename, version)

    async def list_artifact_keys(
        self, *, app_name: str, user_id: str, session_id: Optional[str] = None
    ) -> list[str]:
        """The session's filenames and the user's (``user:``) filenames, sorted."""
        check_ids(app_name, user_id, session_id)
        scopes = [ArtifactScope(app_name, user_id, None)]
        if session_id is not None:
            scopes.insert(0, ArtifactScope(app_name, user_id, session_id))
        return await self.store.call(self._keys, scopes)

    async def delete_artifact(
        self, *, app_name: str, user_id: str, filename: str, session_id: Optional[str] = None
    ) -> None:
        """Records that every version of `filename` so far is deleted. Numbering goes on, so a
        later save never reuses a number; the bytes stay in the blob store until a purge."""
        scope = artifact_scope(app_name, user_id, filename, session_id)
        await self.store.call(self._delete, scope, filename)

    async def list_versions(
        self, *, app_name: str, user_id: str, filename: str, session_id: Optional[str] = None
    ) -> list[int]:
        return [v.version for v in await self._records(app_name, user_id, filename, session_id)]

    async def list_artifact_versions(
        self, *, app_name: str, user_id: str, filename: str, session_id: Optional[str] = None
    ) -> list[ArtifactVersion]:
        scope = artifact_scope(app_name, user_id, filename, session_id)
        return [_metadata(scope, r) for r in await self._records(app_name, user_id, filename, session_id)]

    async def get_artifact_version(
        self,
        *,
        app_name: str,
        user_id: str,
        filename: str,
        session_id: Optional[str] = None,
        version: Optional[int] = None,
    ) -> Optional[ArtifactVersion]:
        scope = artifact_scope(app_name, user_id, filename, session_id)
        _check_version(version)
        record = await self.store.call(self._record, scope, filename, version, False)
        return None if record is None else _metadata(scope, record)

    async def restore_artifact(
        self,
        *,
        app_name: str,
        user_id: str,
        filename: str,
        version: int,
        session_id: Optional[str] = None,
    ) -> int:
        """Records a new version whose content is exactly `version`'s (even a deleted one) and
        returns its number. No bytes are copied: both versions name the same blob. This is
        what a rewind uses to bring back the version an earlier ``artifact_delta`` recorded."""
        scope = artifact_scope(app_name, user_id, filename, session_id)
        _check_version(version)
        if version is None:
            raise InvalidArgumentError("restore_artifact needs the version to restore.")
        content = _Content(None, BYTES, "", reference=(scope, filename, version))
        return await self.store.call(self._save, scope, filename, content, None)  # None: the version's own metadata

    async def restore_artifacts(
        self,
        *,
        app_name: str,
        user_id: str,
        versions: Mapping[str, Optional[int]],
        session_id: Optional[str] = None,
    ) -> dict[str, Optional[int]]:
        """Brings files back to earlier versions, atomically (one append per scope): each
        filename maps to the version whose content it should have again, or to None to delete it.

        A rewind calls this with the files its rewound events touched: the version each had
        before the rewound invocation (the marker event's ``artifact_delta``), or None for files
        created since. A file whose newest version already has that content is left alone.
        Returns each changed file's new version number (None for a deletion)."""
        check_ids(app_name, user_id, session_id)
        by_scope: dict[ArtifactScope, dict[str, Optional[int]]] = {}
        for filename, version in versions.items():
            scope = artifact_scope(app_name, user_id, filename, session_id)
            _check_version(version)
            by_scope.setdefault(scope, {})[filename] = version
        changed: dict[str, Optional[int]] = {}
        for scope, wanted in by_scope.items():
            changed.update(await self.store.call(self._restore, scope, wanted))
        return changed

    async def close(self) -> None:
        close_blobs = getattr(self.blobs, "close", None)
        if close_blobs is not None:
            close_blobs()
        if self._owns_store:
            self.store.close()

    # -- checks (before anything is written) -------------------------------------------

    def _content(self, caller: ArtifactScope, filename: str, artifact: Any) -> _Content:
        """The Part as stored. A reference may name the caller's session's files or the user's, as
        in ADK, whichever scope the new version goes to."""
        artifact = ensure_part(artifact, filename)
        if artifact.inline_data is not None and artifact.inline_data.data is not None:
            blob = artifact.inline_data
            data = bytes(blob.data)
            content = _Content(data, BYTES, blob.mime_type or "application/octet-stream", blob.display_name)
        elif artifact.text is not None:
            data = artifact.text.encode("utf-8")
            content = _Content(data, TEXT, "text/plain")
        elif is_artifact_ref(artifact):
            return _Content(None, BYTES, "", reference=caller.reference(artifact.file_data.file_uri))
        else:
            raise InvalidArgumentError(
                f"Artifact {filename!r} has neither bytes nor text: save a Part made with "
                "types.Part(text=...) or types.Part.from_bytes(data=..., mime_type=...)."
            )
        if len(data) > self.max_artifact_bytes:
            raise InvalidArgumentError(
                f"Artifact {filename!r} is {len(data):,} bytes, over this service's limit of "
                f"{self.max_artifact_bytes:,} bytes; store it elsewhere or raise max_artifact_bytes."
            )
        return content

    # -- in the store's thread ---------------------------------------------------------

    def _load_log(self, log_id: UUID) -> Optional[ArtifactLog]:
        try:
            return self._application.repository.get(log_id)
        except AggregateNotFoundError:
            return None

    def _record(
        self, scope: ArtifactScope, filename: str, version: Optional[int], include_deleted: bool
    ) -> Optional[VersionRecord]:
        log_id = scope.log_id
        with self._locks.get(log_id):
            log = self._load_log(log_id)
            if log is None:
                return None
            return find_version(log.view, _key(log, scope, filename), version, include_deleted=include_deleted)

    def _save(
        self, scope: ArtifactScope, filename: str, content: _Content, metadata: Optional[dict[str, Any]]
    ) -> int:
        """Records a new version. `metadata` None keeps a referenced version's custom_metadata."""
        source, ref_scope, ref_version = None, None, None
        if content.reference is None:
            assert content.data is not None
            sha256, size = store_bytes(self.blobs, content.data), len(content.data)  # before the event
            kind, mime_type, display_name = content.kind, content.mime_type, content.display_name
        else:
            ref_scope, ref_name, ref_version = content.reference
            source = self._record(ref_scope, ref_name, ref_version, True)
            if source is None:
                raise InvalidArgumentError(
                    f"Artifact {ref_name!r} has no version {ref_version} to restore or reference."
                )
            sha256, size, kind = source.sha256, source.size, source.kind
            mime_type, display_name = source.mime_type, source.display_name
            if metadata is None:
                metadata = source.custom_metadata
        log_id = scope.log_id
        for attempt in range(SAVE_ATTEMPTS):
            with self._locks.get(log_id):
                log = self._load_log(log_id) or ArtifactLog.start(scope)
                key = _key(log, scope, filename)
                version = log.next_version(key)
                same_file = source is not None and ref_scope == scope and source.filename == key
                log.save_version(
                    VersionRecord(
                        filename=key,
                        version=version,
                        sha256=sha256,
                        size=size,
                        mime_type=mime_type,
                        kind=kind,
                        create_time=time.time(),
                        custom_metadata=dict(metadata or {}),
                        display_name=display_name,
                        copied_from=ref_version if same_file else None,
                    )
                )
                try:
                    self._application.save(log)
                    return version
                except IntegrityError:
                    # Another process saved to this log first: reload and take the next number.
                    self.store.forget_cached(log_id)
            time.sleep(random.uniform(0, 0.002 * min(attempt + 1, 10)))
        raise StoreError(
            f"Could not save artifact {filename!r}: {SAVE_ATTEMPTS} attempts each lost a race with "
            "other writers of the same scope. Try again."
        )

    def _restore(self, scope: ArtifactScope, wanted: dict[str, Optional[int]]) -> dict[str, Optional[int]]:
        log_id = scope.log_id
        for attempt in range(SAVE_ATTEMPTS):
            with self._locks.get(log_id):
                log = self._load_log(log_id) or ArtifactLog.start(scope)
                changed: dict[str, Optional[int]] = {}
                now = time.time()
                for filename, version in wanted.items():
                    key = _key(log, scope, filename)
                    file = log.view.get(key)
                    live = file.live() if file is not None else []
                    if version is None:
                        if live:
                            log.delete(key, now)
                            changed[filename] = None
                        continue
                    source = find_version(log.view, key, version, include_deleted=True)
                    if source is None:
                        raise InvalidArgumentError(f"Artifact {filename!r} has no version {version} to restore.")
                    newest = live[-1] if live else None
                    if newest is not None and (newest.sha256, newest.kind, newest.mime_type) == (
                        source.sha256, source.kind, source.mime_type
                    ):
                        continue
                    new_version = log.next_version(key)
                    log.save_version(
                        dataclasses.replace(source, version=new_version, create_time=now, copied_from=version)
                    )
                    changed[filename] = new_version
                if not changed:
                    return changed
                try:
                    self._application.save(log)
                    return changed
                except IntegrityError:
                    self.store.forget_cached(log_id)
            time.sleep(random.uniform(0, 0.002 * min(attempt + 1, 10)))
        raise StoreError("Could not restore artifacts: too many concurrent writers. Try again.")

    def _load_part(self, scope: ArtifactScope, filename: str, version: Optional[int]) -> Optional[types.Part]:
        record = self._record(scope, filename, version, False)
        if record is None:
            return None
        what = f"Artifact {filename!r} version {record.version}"
        data = check_blob(record.sha256, self.blobs.get(record.sha256), what)
        if record.kind == TEXT:
            return types.Part(text=data.decode("utf-8"))
        return types.Part(
            inline_data=types.Blob(data=data, mime_type=record.mime_type, display_name=record.display_name)
        )

    def _keys(self, scopes: list[ArtifactScope]) -> list[str]:
        names: set[str] = set()
        for scope in scopes:
            log_id = scope.log_id
            with self._locks.get(log_id):
                log = self._load_log(log_id)
                if log is not None:
                    names.update(live_filenames(log.view))
        return sorted(names)

    def _delete(self, scope: ArtifactScope, filename: str) -> None:
        log_id = scope.log_id
        for attempt in range(SAVE_ATTEMPTS):
            with self._locks.get(log_id):
                log = self._load_log(log_id)
                key = None if log is None else _key(log, scope, filename)
                file = None if log is None else log.view.get(key)
                if file is None or not file.live():
                    return
                log.delete(key, time.time())
                try:
                    self._application.save(log)
                    return
                except IntegrityError:
                    self.store.forget_cached(log_id)
            time.sleep(random.uniform(0, 0.002 * min(attempt + 1, 10)))
        raise StoreError(f"Could not delete artifact {filename!r}: too many concurrent writers. Try again.")

    def _live_records(self, scope: ArtifactScope, filename: str) -> list[VersionRecord]:
        log_id = scope.log_id
        with self._locks.get(log_id):
            log = self._load_log(log_id)
            file = None if log is None else log.view.get(_key(log, scope, filename))
            return [] if file is None else list(file.live())

    async def _records(
        self, app_name: str, user_id: str, filename: str, session_id: Optional[str]
    ) -> list[VersionRecord]:
        scope = artifact_scope(app_name, user_id, filename, session_id)
        return await self.store.call(self._live_records, scope, filename)


def _key(log: ArtifactLog, scope: ArtifactScope, filename: str) -> str:
    return file_key(log.view, filename, user_scope=scope.session_id is None)


def _check_version(version: object) -> None:
    if version is not None and (not isinstance(version, int) or isinstance(version, bool) or version < 0):
        raise InvalidArgumentError(f"An artifact version is an int ≥ 0 (or None for the newest), got {version!r}.")


def _check_metadata(custom_metadata: Optional[dict[str, Any]]) -> dict[str, Any]:
    """A copy of the caller's metadata (later changes to theirs do not reach the log), checked
    to be JSON as every store keeps it."""
    if custom_metadata is None:
        return {}
    if not isinstance(custom_metadata, dict):
        raise InvalidArgumentError(f"custom_metadata must be a dict, got {type(custom_metadata).__name__}.")
    check_json_value(custom_metadata, "custom_metadata")
    return json.loads(json.dumps(custom_metadata))


def _metadata(scope: ArtifactScope, record: VersionRecord) -> ArtifactVersion:
    return ArtifactVersion(
        version=record.version,
        canonical_uri=scope.uri(record.filename, record.version),
        custom_metadata=dict(record.custom_metadata),
        create_time=record.create_time,
        mime_type=record.mime_type,
        sha256=record.sha256,
        size=record.size,
    )


# -- the services users construct --------------------------------------------------------


class InMemoryArtifactService(LogArtifactService):
    """Artifacts kept in this process only: for tests and throwaway runs."""

    def __init__(self, *, max_artifact_bytes: int = DEFAULT_MAX_ARTIFACT_BYTES):
        super().__init__(open_store("memory://"), max_artifact_bytes=max_artifact_bytes, owns_store=True)


class SqliteArtifactService(LogArtifactService):
    """Artifacts in one SQLite file: versions in its log, bytes in its ``chronicle_blobs`` table."""

    def __init__(self, path_or_url: str = "chronicle.db", *, max_artifact_bytes: int = DEFAULT_MAX_ARTIFACT_BYTES):
        super().__init__(sqlite_store(path_or_url), max_artifact_bytes=max_artifact_bytes, owns_store=True)


class PostgresArtifactService(LogArtifactService):
    """Artifacts in PostgreSQL, shared by runner processes on many machines."""

    def __init__(self, url: str, *, max_artifact_bytes: int = DEFAULT_MAX_ARTIFACT_BYTES):
        store = postgres_store(url, needed_by="PostgresArtifactService")
        super().__init__(store, max_artifact_bytes=max_artifact_bytes, owns_store=True)


class FileArtifactService(LogArtifactService):
    """Artifact bytes as files under `root_dir` (``root_dir/blobs/ab/cdef…``, one file per
    distinct content), versions in a log (``root_dir/artifacts.db`` unless a store is given).
    Filenames never become paths, so nothing is written outside `root_dir`."""

    def __init__(
        self,
        root_dir: str | Path,
        *,
        store: Optional[Store] = None,
        max_artifact_bytes: int = DEFAULT_MAX_ARTIFACT_BYTES,
        fsync: bool = True,
    ):
        self.root_dir = Path(root_dir).expanduser().resolve()
        self.root_dir.mkdir(parents=True, exist_ok=True)
        owns = store is None
        if store is None:
            store = open_store(f"sqlite:///{self.root_dir / 'artifacts.db'}")
        super().__init__(
            store,
            blobs=FileBlobStore(self.root_dir / "blobs", fsync=fsync),
            max_artifact_bytes=max_artifact_bytes,
            owns_store=owns,
        )


def artifact_service_from_url(url: str, *, max_artifact_bytes: int = DEFAULT_MAX_ARTIFACT_BYTES) -> LogArtifactService:
    """An artifact service for memory://, sqlite:///path.db, postgresql://… or file:///dir URLs."""
    if url.startswith("file://"):
        return FileArtifactService(url[len("file://"):] or ".", max_artifact_bytes=max_artifact_bytes)
    return service_from_url(url, lambda store: LogArtifactService(
        store, max_artifact_bytes=max_artifact_bytes, owns_store=True))
