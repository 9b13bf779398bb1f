"""The memory-service interface (ADK's): sessions added to a searchable memory of a user."""

from __future__ import annotations

import abc
from typing import TYPE_CHECKING, Any, Mapping, Optional, Sequence

from google.genai import types
from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    from domain.events import Event
    from domain.session import Session


class MemoryEntry(BaseModel):
    """One remembered piece of a conversation."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    content: types.Content
    custom_metadata: dict[str, Any] = Field(default_factory=dict)
    id: Optional[str] = None
    author: Optional[str] = None
    timestamp: Optional[str] = None
    """When the original content happened, ISO 8601."""


class SearchMemoryResponse(BaseModel):
    model_config = ConfigDict(extra="forbid")

    memories: list[MemoryEntry] = Field(default_factory=list)


class BaseMemoryService(abc.ABC):
    @abc.abstractmethod
    async def add_session_to_memory(self, session: Session) -> None:
        """Makes the session's events searchable for its app and user."""

    @abc.abstractmethod
    async def search_memory(self, *, app_name: str, user_id: str, query: str) -> SearchMemoryResponse:
        """Memories of `user_id` in `app_name` that match `query`."""

    async def add_events_to_memory(
        self,
        *,
        app_name: str,
        user_id: str,
        events: Sequence[Event],
        session_id: Optional[str] = None,
        custom_metadata: Optional[Mapping[str, object]] = None,
    ) -> None:
        """Adds just these events (e.g. the latest turn) to the user's memory."""
        raise NotImplementedError(f"{type(self).__name__} cannot add single events; use add_session_to_memory.")

    async def add_memory(
        self,
        *,
        app_name: str,
        user_id: str,
        memories: Sequence[MemoryEntry],
        custom_metadata: Optional[Mapping[str, object]] = None,
    ) -> None:
        """Writes memories directly, for services that support it (Chronicle's remember events)."""
        raise NotImplementedError(
            f"{type(self).__name__} does not take memories directly; call add_events_to_memory(...) or "
            "add_session_to_memory(session) instead."
        )

    async def close(self) -> None:
        """Release the service's connections and threads."""
