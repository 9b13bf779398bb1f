"""The ADK-compatible Session a service hands out: a view of the log, not the log."""

from __future__ import annotations

from typing import Any, Optional

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr
from pydantic.alias_generators import to_camel

from domain.events import Event


class Session(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="forbid", arbitrary_types_allowed=True
    )

    id: str
    app_name: str
    user_id: str
    state: dict[str, Any] = Field(default_factory=dict)
    events: list[Event] = Field(default_factory=list)
    last_update_time: float = 0.0

    # The log version this object reflects; appends check it (optimistic concurrency).
    _version: Optional[int] = PrivateAttr(default=None)

    @property
    def version(self) -> Optional[int]:
        # Read the private slot directly: pydantic's __getattr__ is slow for a hot path.
        private = self.__pydantic_private__
        return private.get("_version") if private else None

    def advance(self, version: int, last_update_time: float) -> None:
        """Move this view to a version the service just stored (its event already appended).
        Set directly: pydantic's ``__setattr__`` is a slow path, twice per append."""
        self.__dict__["last_update_time"] = last_update_time
        self.__pydantic_private__["_version"] = version  # type: ignore[index]

    @classmethod
    def from_store(
        cls,
        *,
        id: str,
        app_name: str,
        user_id: str,
        state: dict[str, Any],
        events: list[Event],
        last_update_time: float,
        version: int,
    ) -> "Session":
        """Build a session from values the store already validated, skipping validation
        (listing 10,000 sessions would otherwise spend most of its time re-checking them)."""
        session = cls.__new__(cls)
        values = {
            "id": id,
            "app_name": app_name,
            "user_id": user_id,
            "state": state,
            "events": events,
            "last_update_time": last_update_time,
        }
        object.__setattr__(session, "__dict__", values)
        object.__setattr__(session, "__pydantic_fields_set__", set(values))
        object.__setattr__(session, "__pydantic_extra__", None)
        object.__setattr__(session, "__pydantic_private__", {"_version": version})
        return session
