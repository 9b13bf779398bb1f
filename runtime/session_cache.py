"""What a Runner keeps of the sessions it ran, so the next turn need not re-read them.

For each recently run session: the events the Runner has seen and the session's folded LLM
contexts. Before reuse, the session is checked against the store with a one-event read; if
anybody else wrote to it since, it is read again. The least recently used are dropped.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Optional

from domain.errors import SessionNotFoundError
from domain.session import Session
from runtime.agents.llm_context import LlmContextTracker
from runtime.sessions.base import BaseSessionService, GetSessionConfig

# Enough to learn a session's current version.
FRESHNESS_CHECK = GetSessionConfig(num_recent_events=1)


class CachedSession:
    """One session as a Runner runs on it: its events so far and its folded LLM contexts."""

    __slots__ = ("session", "llm_context")

    def __init__(self, session: Session, llm_context: LlmContextTracker):
        self.session = session
        self.llm_context = llm_context


class SessionCache:
    def __init__(self, size: int):
        self.size = size
        self._entries: OrderedDict[tuple[str, str], CachedSession] = OrderedDict()

    async def load(
        self,
        service: BaseSessionService,
        app_name: str,
        user_id: str,
        session_id: str,
        config: Optional[GetSessionConfig],
        *,
        create: bool,
    ) -> CachedSession:
        """The session to run on: the cached one when the store has nothing newer (and no
        particular window is asked for), else read (or, with ``create``, created)."""
        key = (user_id, session_id)
        cached = self._entries.get(key)
        if cached is not None and config is None:
            fresh = await service.get_session(
                app_name=app_name, user_id=user_id, session_id=session_id, config=FRESHNESS_CHECK
            )
            if fresh is not None and fresh.version is not None and fresh.version == cached.session.version:
                fresh.copy_events_of(cached.session)  # a list of its own: concurrent runs must not share one
                return CachedSession(fresh, cached.llm_context)
            if fresh is None:
                self._entries.pop(key, None)
        session = await service.get_session(app_name=app_name, user_id=user_id, session_id=session_id, config=config)
        if session is None:
            if not create:
                raise SessionNotFoundError(
                    app_name, user_id, session_id, hint="or construct the Runner with auto_create_session=True"
                )
            session = await service.create_session(app_name=app_name, user_id=user_id, session_id=session_id)
        return CachedSession(session, cached.llm_context if cached is not None else LlmContextTracker())

    def remember(self, entry: CachedSession) -> None:
        session = entry.session
        if session.version is None:
            return
        key = (session.user_id, session.id)
        current = self._entries.get(key)
        if current is not None and (current.session.version or 0) > session.version:
            return  # a concurrent invocation got further
        self._entries[key] = entry
        self._entries.move_to_end(key)
        while len(self._entries) > self.size:
            self._entries.popitem(last=False)

    def forget(self, user_id: str, session_id: str) -> None:
        self._entries.pop((user_id, session_id), None)

    def clear(self) -> None:
        self._entries.clear()
