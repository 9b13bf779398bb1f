"""Rewinding with the session's files, as google-adk's Runner.rewind_async does it.

The session service records a rewind as one event; replaying the log takes the session's state
and its *view* of artifact versions back. The artifact service keeps its own logs, though, and
`load_artifact(version=None)` returns a file's newest version there. So the files the rewound
events touched are brought back through the artifact service first, in ADK's order: each gets a
new version holding the bytes it had before the rewound invocation (version numbers go on, as in
ADK), and files created since are deleted (nothing is purged: rewinding the rewind brings them
back). Then the rewind is recorded, its ``artifact_delta`` naming those new versions. ``user:``
files are shared by the user's sessions and, like ``app:``/``user:`` state, are not rolled back.
"""

from __future__ import annotations

from typing import Any, Mapping, Optional

from domain.events import Event
from domain.rewind_ranges import live_events
from domain.session_log import RECORDED_TOPICS, fold_artifact_view, session_artifacts, session_log_id
from runtime.log_reader import LogReader
from runtime.sessions.base import GetSessionConfig


async def rewind_with_files(
    session_service: Any,
    artifact_service: Any,
    *,
    app_name: str,
    user_id: str,
    session_id: str,
    rewind_before_invocation_id: str,
) -> tuple[Event, dict[str, Optional[int]]]:
    """Rewinds the session and its files; returns the marker event and the files that changed
    (their new version numbers, None for deletions). Once the rewind is recorded, or could not be
    (another writer rewound first: the error is raised), the files are brought to the versions
    the session's log names then, so rewinds running at once leave them as the last recorded
    one says (a no-op when nothing raced)."""
    scope = dict(app_name=app_name, user_id=user_id, session_id=session_id)
    if artifact_service is None:
        marker = await session_service.rewind_session(rewind_before_invocation_id=rewind_before_invocation_id, **scope)
        return marker, {}
    before = await files_to_restore(session_service, invocation_id=rewind_before_invocation_id, **scope)
    restored = await restore_artifacts(artifact_service, versions=before, **scope)
    try:
        marker = await session_service.rewind_session(
            rewind_before_invocation_id=rewind_before_invocation_id,
            artifact_versions={name: v for name, v in restored.items() if v is not None},
            **scope,
        )
    finally:
        if restored:  # the last rewind recorded decides which versions the files show
            await follow_recorded_files(session_service, artifact_service, names=list(restored), **scope)
    return marker, restored


async def follow_recorded_files(
    session_service: Any, artifact_service: Any, *, names: list[str], app_name: str, user_id: str, session_id: str
) -> None:
    """Brings the named files to the versions the session's log names, until the log names the
    same versions after the files were brought there: a rewind recorded meanwhile by another
    writer may have restored them by an older reading, so each pass reads the log again."""
    view = getattr(session_service, "artifact_view", None)
    if view is None:
        return
    scope = dict(app_name=app_name, user_id=user_id, session_id=session_id)
    wanted: Optional[dict[str, Optional[int]]] = None
    while True:
        current = await view(**scope)
        now = {name: current.get(name) for name in names}
        if now == wanted:
            return
        wanted = now
        await restore_artifacts(artifact_service, versions=wanted, **scope)


async def files_to_restore(
    session_service: Any, *, app_name: str, user_id: str, session_id: str, invocation_id: str
) -> dict[str, Optional[int]]:
    """For each session file the events from the invocation on touched, the version it had
    before the invocation (None: it did not exist then). Raises InvocationNotFoundError for an
    invocation not in the timeline."""
    point = getattr(session_service, "rewind_point", None)
    if point is None:
        return await versions_before(
            session_service, app_name=app_name, user_id=user_id, session_id=session_id, invocation_id=invocation_id
        )
    at = await point(app_name=app_name, user_id=user_id, session_id=session_id, rewind_before_invocation_id=invocation_id)
    store = session_service.store
    log_id = session_log_id(app_name, user_id, session_id)
    touched = await store.call(_touched, store, log_id, at.start, at.version, at.artifacts_before)
    return {name: at.artifacts_before.get(name) for name in sorted(touched)}


def _touched(store: Any, log_id: Any, first: int, last: int, view: dict[str, int]) -> set[str]:
    """The files the log's events ``first .. last`` touched, folding forward from ``view`` (the
    session's files just before ``first``): every file they wrote, a nested rewind replaced or
    restored, or whose version differs at the end."""
    reader, mapper = LogReader(store), store.application.mapper
    start = dict(view)
    view = dict(view)
    touched: set[str] = set()
    for row in reader.stored_events(log_id, gt=first - 1, lte=last):
        if row.topic not in RECORDED_TOPICS:
            continue
        domain_event = mapper.to_domain_event(row)
        delta = (domain_event.event.get("actions") or {}).get("artifact_delta")
        nested = getattr(domain_event, "restored_artifacts", None)
        touched.update(session_artifacts(delta) if nested is None else {*view, *nested})
        fold_artifact_view(view, delta, restored=nested)
    touched.update(k for k in {*view, *start} if view.get(k) != start.get(k))
    return touched


async def rewound_artifact_versions(
    session_service: Any, *, app_name: str, user_id: str, session_id: str, marker: Event
) -> dict[str, Optional[int]]:
    """For each session file the rewound events touched: the version the session had before the
    rewound invocation, or None for files that did not exist then.

    Reads the rewind's own stored event and the rewound range only (never the whole history)."""
    store = getattr(session_service, "store", None)
    if store is None or not hasattr(store, "recorder"):
        raise TypeError("rewound_artifact_versions needs a log-backed session service")
    log_id = session_log_id(app_name, user_id, session_id)
    return await store.call(_versions_from_log, store, log_id, marker.id)


def _versions_from_log(store: Any, log_id: Any, marker_id: str) -> dict[str, Optional[int]]:
    reader, mapper = LogReader(store), store.application.mapper
    # The rewind is almost always the log's newest event: one read finds it.
    rows = reader.stored_events(log_id, desc=True, limit=1)
    rewound = mapper.to_domain_event(rows[0]) if rows else None
    if rewound is None or (getattr(rewound, "event", None) or {}).get("id") != marker_id:
        version = reader.claim(log_id, marker_id)
        rows = reader.stored_events(log_id, gt=version - 1, lte=version) if version is not None else []
        if not rows:
            return {}
        rewound = mapper.to_domain_event(rows[0])
    version = rows[0].originator_version
    start = getattr(rewound, "start_version", None)
    if start is None:
        return {}
    restored: Mapping[str, int] = rewound.restored_artifacts
    # The view the rewind replaced, folded forward from the one it restored: what differs, or
    # what the rewound range wrote, is touched.
    touched = _touched(store, log_id, start, version - 1, dict(restored))
    return {name: restored.get(name) for name in sorted(touched)}


async def versions_before(
    session_service: Any, *, app_name: str, user_id: str, session_id: str, invocation_id: str
) -> dict[str, Optional[int]]:
    """``files_to_restore``'s answer for any session service, from its live events (read before
    the rewind); {} when the invocation is not among them."""
    session = await session_service.get_session(
        app_name=app_name, user_id=user_id, session_id=session_id, config=GetSessionConfig()
    )
    if session is None:
        return {}
    events = live_events(session.events)
    start = next((i for i, e in enumerate(events) if e.invocation_id == invocation_id), None)
    if start is None:
        return {}
    before: dict[str, int] = {}
    for event in events[:start]:
        fold_artifact_view(before, event.actions.artifact_delta)
    touched: set[str] = set()
    for event in events[start:]:
        touched.update(session_artifacts(event.actions.artifact_delta))
    return {name: before.get(name) for name in sorted(touched)}


async def restore_artifacts(
    artifact_service: Any,
    *,
    app_name: str,
    user_id: str,
    session_id: str,
    versions: Mapping[str, Optional[int]],
) -> dict[str, Optional[int]]:
    """Brings each file back to the content of the given version (None: deletes it). Returns the
    files that changed, with their new version numbers (None for deletions)."""
    if not versions or artifact_service is None:
        return {}
    restore = getattr(artifact_service, "restore_artifacts", None)
    if restore is not None:
        return await restore(app_name=app_name, user_id=user_id, session_id=session_id, versions=dict(versions))
    # Any other ADK artifact service: copy the old version forward, or delete.
    changed: dict[str, Optional[int]] = {}
    scope = dict(app_name=app_name, user_id=user_id, session_id=session_id)
    for filename, version in versions.items():
        current = await artifact_service.load_artifact(filename=filename, **scope)
        if version is None:
            if current is not None:
                await artifact_service.delete_artifact(filename=filename, **scope)
                changed[filename] = None
            continue
        wanted = await artifact_service.load_artifact(filename=filename, version=version, **scope)
        if wanted is None or wanted == current:
            continue
        changed[filename] = await artifact_service.save_artifact(filename=filename, artifact=wanted, **scope)
    return changed
