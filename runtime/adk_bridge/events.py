"""google-adk's Event and Session <-> Chronicle's, through the JSON rule in ``domain.adk_json``."""

from __future__ import annotations

from typing import Any

from google.adk.events.event import Event as AdkEvent
from google.adk.sessions.session import Session as AdkSession

from domain.adk_json import from_adk_json, to_adk_json
from domain.events import Event
from domain.session import Session


def to_chronicle_event(event: AdkEvent) -> Event:
    data, _ = from_adk_json(event.model_dump(mode="json", exclude_none=True))
    return Event.model_validate(data)


def to_adk_event(event: Event) -> AdkEvent:
    return AdkEvent.model_validate(to_adk_json(event.to_json_dict()))


def to_adk_session(session: Session) -> AdkSession:
    """ADK's Session of a Chronicle session view; the log version it reflects rides along in
    ADK's own stale-session marker, for the next append to check."""
    adk = AdkSession.model_construct(
        id=session.id,
        app_name=session.app_name,
        user_id=session.user_id,
        state=session.state,
        events=[to_adk_event(e) for e in session.events],
        last_update_time=session.last_update_time,
    )
    mark(adk, session.version, session.last_update_time)
    return adk


def mark(session: AdkSession, version: int | None, last_update_time: float) -> None:
    session._storage_update_marker = None if version is None else str(version)
    session.last_update_time = last_update_time


def version_of(session: AdkSession) -> int | None:
    marker = session._storage_update_marker
    return int(marker) if marker is not None and marker.isdigit() else None


def chronicle_view(session: AdkSession, events: list[Any] | None = None) -> Session:
    """A Chronicle session view naming the same session at the version the ADK one reflects."""
    return Session.from_store(
        id=session.id,
        app_name=session.app_name,
        user_id=session.user_id,
        state=dict(session.state),
        events=events if events is not None else [],
        last_update_time=session.last_update_time,
        version=version_of(session),  # type: ignore[arg-type]
    )
