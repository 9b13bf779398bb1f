"""Rewinding through the Runner: the session's one-append rewind, then its artifact files.

`LogSessionService.rewind_session` records the rewind as one event; replaying the log takes the
session's state and its *view* of artifact versions back. The artifact service keeps its own
logs, though, and `load_artifact(version=None)` returns a file's newest version there. So after
the rewind the files the rewound events touched are brought back through the artifact service:
each gets a new version whose content is the version the session had before the rewound
invocation, and files created since are deleted (nothing is purged: rewinding the rewind
brings them back). ``user:`` files are shared by the user's sessions and, like ``app:``/``user:`` state,
are not rolled back.
"""

from __future__ import annotations

from typing import Any, Mapping, Optional

from domain.events import Event
from domain.session_log import RECORDED_TOPICS, fold_artifact_view, session_artifacts, session_log_id
from runtime.sessions.base import GetSessionConfig


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
    recorder, mapper = store.recorder, store.application.mapper
    # The rewind is almost always the log's newest event: one read finds it.
    rows = recorder.select_events(log_id, desc=True, limit=1)
    rewound = mapper.to_domain_event(rows[0]) if rows else None
    if rewound is None or (getattr(rewound, "event", None) or {}).get("id") != marker_id:
        version = recorder.find_claim(log_id, marker_id)
        rows = recorder.select_events(log_id, gt=version - 1, lte=version) if version is not None else []
        if not rows:
            return {}
        rewound = mapper.to_domain_event(rows[0])
    version = rows[0].originator_version
    start = getattr(rewound, "start_version", None)
    if start is None:
        return {}
    restored: Mapping[str, int] = rewound.restored_artifacts
    # Fold the rewound range forward from the restored view (the view just before it) to get the
    # view the rewind replaced; every file that differs, or that the range wrote, is touched.
    view: dict[str, int] = dict(restored)
    touched: set[str] = set()
    for row in recorder.select_events(log_id, gt=start - 1, lte=version - 1):
        if row.topic not in RECORDED_TOPICS:
            continue
        domain_event = mapper.to_domain_event(row)
        delta = (domain_event.event.get("actions") or {}).get("artifact_delta")
        nested = getattr(domain_event, "restored_artifacts", None)
        # A rewind inside the range touches whatever it replaced or restored.
        touched.update(session_artifacts(delta) if nested is None else {*view, *nested})
        fold_artifact_view(view, delta, restored=nested)
    touched.update(k for k in {*view, *restored} if view.get(k) != restored.get(k))
    return {name: restored.get(name) for name in sorted(touched)}


async def versions_before(
    session_service: Any, *, app_name: str, user_id: str, session_id: str, invocation_id: str
) -> dict[str, Optional[int]]:
    """The same answer for any session service, from its events (read before the rewind): files
    touched from the invocation on, and the version each had before it."""
    session = await session_service.get_session(
        app_name=app_name, user_id=user_id, session_id=session_id, config=GetSessionConfig()
    )
    if session is None:
        return {}
    events = session.events
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
