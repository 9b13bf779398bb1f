"""google-adk's BaseSessionService over Chronicle's session log (``LogSessionService``)."""

from __future__ import annotations

import copy
from collections import OrderedDict
from typing import Any, Optional

from google.adk.events.event import Event as AdkEvent
from google.adk.sessions.base_session_service import BaseSessionService
from google.adk.sessions.base_session_service import GetSessionConfig as AdkGetSessionConfig
from google.adk.sessions.base_session_service import ListSessionsResponse as AdkListSessionsResponse
from google.adk.sessions.session import Session as AdkSession

from runtime.adk_bridge.errors import as_adk_errors
from runtime.adk_bridge.events import chronicle_view, mark, to_adk_event, to_adk_session, to_chronicle_event
from runtime.sessions.base import GetSessionConfig
from runtime.sessions.service import LogSessionService
from runtime.stores import Store, open_store

_CACHED_SESSIONS = 256  # sessions whose ADK events are kept converted, most recently used


class ChronicleSessionService(BaseSessionService):
    """ADK's session service on Chronicle's log: give it a store URL (``sqlite:///app.db``,
    ``postgresql://…``, ``memory://``) or the ``Store`` another Chronicle service uses.

    Each ADK event is stored field for field as one event of the session's log; the ADK
    ``Session`` it hands out remembers the log version it reflects, so a writer behind the log
    gets ``StaleSessionError`` (ADK's type and Chronicle's) and nothing is written."""

    def __init__(self, store: Store | str, *, owns_store: Optional[bool] = None):
        self.store = open_store(store) if isinstance(store, str) else store
        self._owns_store = isinstance(store, str) if owns_store is None else owns_store
        self.sessions = LogSessionService(self.store)  # Chronicle's own API on the same log
        # ADK's Runner loads the whole session every turn. The ADK events of recently used
        # sessions are kept, converted, with the log version they reflect; a load reads the
        # log's head and uses them only when the log is still at that version.
        self._events: OrderedDict[tuple[str, str, str], tuple[int, list[AdkEvent]]] = OrderedDict()

    async def create_session(
        self,
        *,
        app_name: str,
        user_id: str,
        state: Optional[dict[str, Any]] = None,
        session_id: Optional[str] = None,
    ) -> AdkSession:
        with as_adk_errors():
            session = await self.sessions.create_session(
                app_name=app_name, user_id=user_id, state=state, session_id=session_id
            )
        return to_adk_session(session)

    async def get_session(
        self,
        *,
        app_name: str,
        user_id: str,
        session_id: str,
        config: Optional[AdkGetSessionConfig] = None,
    ) -> Optional[AdkSession]:
        key = (app_name, user_id, session_id)
        if config is None and key in self._events:
            head = await self.sessions.get_session(
                app_name=app_name, user_id=user_id, session_id=session_id, config=GetSessionConfig(num_recent_events=0)
            )
            if head is None:
                return None
            cached = self._events.get(key)
            if cached is not None and cached[0] == head.version:
                self._events.move_to_end(key)
                session = to_adk_session(head)
                session.events = [copy.deepcopy(e) for e in cached[1]]  # callers may change what they get
                return session
        window = None
        if config is not None:
            window = GetSessionConfig(
                num_recent_events=config.num_recent_events, after_timestamp=config.after_timestamp
            )
        loaded = await self.sessions.get_session(
            app_name=app_name, user_id=user_id, session_id=session_id, config=window
        )
        if loaded is None:
            return None
        session = to_adk_session(loaded)
        if config is None:
            self._remember(key, loaded.version, [copy.deepcopy(e) for e in session.events])
        return session

    async def list_sessions(self, *, app_name: str, user_id: Optional[str] = None) -> AdkListSessionsResponse:
        listed = await self.sessions.list_sessions(app_name=app_name, user_id=user_id)
        return AdkListSessionsResponse(sessions=[to_adk_session(s) for s in listed.sessions])

    async def delete_session(self, *, app_name: str, user_id: str, session_id: str) -> None:
        self._events.pop((app_name, user_id, session_id), None)
        await self.sessions.delete_session(app_name=app_name, user_id=user_id, session_id=session_id)

    async def get_user_state(self, *, app_name: str, user_id: str) -> dict[str, Any]:
        return await self.sessions.get_user_state(app_name=app_name, user_id=user_id)

    async def append_event(self, session: AdkSession, event: AdkEvent) -> AdkEvent:
        if event.partial:
            return event  # streamed chunks are forwarded, never stored
        if event.actions.rewind_before_invocation_id:
            return await self._rewind(session, event)
        view = chronicle_view(session)
        expected = view.version
        recorded = to_chronicle_event(event)
        with as_adk_errors():
            stored = await self.sessions.append_event(view, recorded)
        if stored is not recorded:
            return to_adk_event(stored)  # this event id was already stored: what was stored
        await super().append_event(session, event)  # ADK's in-memory part: temp: state, state, events
        mark(session, view.version, view.last_update_time)
        key = (session.app_name, session.user_id, session.id)
        cached = self._events.pop(key, None)
        if cached is not None and cached[0] == expected and view.version is not None:
            cached[1].append(copy.deepcopy(event))  # the cached list is never handed out
            self._remember(key, view.version, cached[1])
        return event

    def _remember(self, key: tuple[str, str, str], version: Optional[int], events: list[AdkEvent]) -> None:
        if version is None:
            return
        self._events[key] = (version, events)
        self._events.move_to_end(key)
        while len(self._events) > _CACHED_SESSIONS:
            self._events.popitem(last=False)

    async def _rewind(self, session: AdkSession, event: AdkEvent) -> AdkEvent:
        self._events.pop((session.app_name, session.user_id, session.id), None)
        return await self._record_rewind(session, event)

    async def _record_rewind(self, session: AdkSession, event: AdkEvent) -> AdkEvent:
        """ADK's Runner.rewind_async appends a marker whose deltas it computed from the events
        it loaded (which leaves out the session's initial state). Recorded as Chronicle's
        rewind instead: the log computes what the session was before the invocation, initial
        state included, and the files take the versions ADK's Runner restored them as (the
        marker's artifact_delta). Through rewind_session rather than append_event, because the
        in-memory ADK session must get the marker as recorded, not the one ADK computed."""
        with as_adk_errors():
            marker = await self.sessions.rewind_session(
                app_name=session.app_name,
                user_id=session.user_id,
                session_id=session.id,
                rewind_before_invocation_id=event.actions.rewind_before_invocation_id,
                invocation_id=event.invocation_id,
                artifact_versions=dict(event.actions.artifact_delta) or None,
            )
            now = await self.sessions.get_session(
                app_name=session.app_name, user_id=session.user_id, session_id=session.id,
                config=GetSessionConfig(num_recent_events=0),
            )
        recorded = to_adk_event(marker)
        await super().append_event(session, recorded)
        if now is not None:
            mark(session, now.version, now.last_update_time)
        return recorded

    async def close(self) -> None:
        if self._owns_store:
            self.store.close()
