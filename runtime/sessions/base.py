"""ADK's session-service API."""

from __future__ import annotations

import abc
from typing import Any, Optional

from pydantic import BaseModel, Field

from domain.events import Event
from domain.session import Session


class GetSessionConfig(BaseModel):
    num_recent_events: Optional[int] = Field(default=None, ge=0)  # 0: no events, as in ADK
    after_timestamp: Optional[float] = None
    # As in ADK, the events come with rewound ones and rewind markers; Session.filter_events()
    # leaves them out.


class ListSessionsResponse(BaseModel):
    sessions: list[Session] = Field(default_factory=list)


class BaseSessionService(abc.ABC):
    @abc.abstractmethod
    async def create_session(
        self,
        *,
        app_name: str,
        user_id: str,
        state: Optional[dict[str, Any]] = None,
        session_id: Optional[str] = None,
    ) -> Session: ...

    @abc.abstractmethod
    async def get_session(
        self,
        *,
        app_name: str,
        user_id: str,
        session_id: str,
        config: Optional[GetSessionConfig] = None,
    ) -> Optional[Session]: ...

    @abc.abstractmethod
    async def list_sessions(self, *, app_name: str, user_id: Optional[str] = None) -> ListSessionsResponse: ...

    @abc.abstractmethod
    async def delete_session(self, *, app_name: str, user_id: str, session_id: str) -> None: ...

    @abc.abstractmethod
    async def append_event(self, session: Session, event: Event) -> Event: ...

    async def get_user_state(self, *, app_name: str, user_id: str) -> dict[str, Any]:
        """The user's ``user:`` state without the prefix, read without a session ({} if none)."""
        raise NotImplementedError(f"{type(self).__name__} cannot read user state without a session.")

    async def close(self) -> None:
        """Release the store's connections and threads."""
