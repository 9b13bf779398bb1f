"""google-adk's BaseMemoryService over Chronicle's memory (a projection of the log)."""

from __future__ import annotations

from typing import Mapping, Optional, Sequence

from google.adk.events.event import Event as AdkEvent
from google.adk.memory.base_memory_service import BaseMemoryService, SearchMemoryResponse
from google.adk.memory.memory_entry import MemoryEntry
from google.adk.sessions.session import Session as AdkSession

from runtime.adk_bridge.events import chronicle_view, to_chronicle_event
from runtime.memory.service import LogMemoryService
from runtime.stores import Store, open_store


class ChronicleMemoryService(BaseMemoryService):
    """ADK's memory service on Chronicle's store: a remembered session is followed as it grows
    and rewound turns drop out. Give it the ``Store`` of the ``ChronicleSessionService`` (its
    ``.store``) or the same store URL."""

    def __init__(self, store: Store | str, *, owns_store: Optional[bool] = None):
        self.store = open_store(store) if isinstance(store, str) else store
        self._owns_store = isinstance(store, str) if owns_store is None else owns_store
        self.memory = LogMemoryService(self.store)

    async def add_session_to_memory(self, session: AdkSession) -> None:
        events = [to_chronicle_event(e) for e in session.events if not e.partial]
        await self.memory.add_session_to_memory(chronicle_view(session, events))

    async def add_events_to_memory(
        self,
        *,
        app_name: str,
        user_id: str,
        events: Sequence[AdkEvent],
        session_id: Optional[str] = None,
        custom_metadata: Optional[Mapping[str, object]] = None,
    ) -> None:
        await self.memory.add_events_to_memory(
            app_name=app_name, user_id=user_id, session_id=session_id, custom_metadata=custom_metadata,
            events=[to_chronicle_event(e) for e in events if not e.partial],
        )

    async def search_memory(self, *, app_name: str, user_id: str, query: str) -> SearchMemoryResponse:
        found = await self.memory.search_memory(app_name=app_name, user_id=user_id, query=query)
        return SearchMemoryResponse(memories=[MemoryEntry.model_validate(m.model_dump()) for m in found.memories])

    async def close(self) -> None:
        await self.memory.close()
        if self._owns_store:
            self.store.close()
