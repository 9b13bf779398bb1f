"""The contexts user code gets: ReadonlyContext (instruction providers) and CallbackContext."""

from __future__ import annotations

from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Mapping, Optional

from google.genai import types

from domain.errors import ChronicleError
from domain.events import EventActions
from domain.session import Session
from domain.state import State

if TYPE_CHECKING:
    from runtime.invocation_context import InvocationContext
    from runtime.memory.base import SearchMemoryResponse


class ServiceNotConfiguredError(ChronicleError, ValueError):
    """A context method needs a service the Runner was not given."""


class ReadonlyContext:
    def __init__(self, invocation_context: InvocationContext) -> None:
        self._invocation_context = invocation_context

    @property
    def invocation_id(self) -> str:
        return self._invocation_context.invocation_id

    @property
    def agent_name(self) -> str:
        return self._invocation_context.agent.name

    @property
    def user_content(self) -> Optional[types.Content]:
        return self._invocation_context.user_content

    @property
    def user_id(self) -> str:
        return self._invocation_context.user_id

    @property
    def app_name(self) -> str:
        return self._invocation_context.app_name

    @property
    def branch(self) -> Optional[str]:
        return self._invocation_context.branch

    @property
    def session(self) -> Session:
        return self._invocation_context.session

    @property
    def run_config(self) -> Any:
        return self._invocation_context.run_config

    @property
    def state(self) -> Mapping[str, Any]:
        """The session state as this invocation sees it (read-only)."""
        return MappingProxyType(self._invocation_context.session.state)


class CallbackContext(ReadonlyContext):
    """What callbacks get: delta-tracking `state`, the `actions` of the event being built, artifacts.

    A write to `state` is visible at once to everything else in the invocation (dirty read) and is
    recorded in `actions.state_delta`, so it is committed with the event that carries these actions.
    """

    def __init__(
        self, invocation_context: InvocationContext, *, event_actions: Optional[EventActions] = None
    ) -> None:
        super().__init__(invocation_context)
        self._event_actions = event_actions if event_actions is not None else EventActions()
        self._state = State(value=invocation_context.session.state, delta=self._event_actions.state_delta)

    @property
    def state(self) -> State:  # type: ignore[override]
        return self._state

    @property
    def actions(self) -> EventActions:
        return self._event_actions

    # -- artifacts ---------------------------------------------------------------------------

    def _artifact_service(self) -> Any:
        service = self._invocation_context.artifact_service
        if service is None:
            raise ServiceNotConfiguredError(
                "This Runner has no artifact service; pass artifact_service=... to the Runner "
                "(InMemoryRunner provides one)."
            )
        return service

    async def save_artifact(
        self, filename: str, artifact: types.Part, custom_metadata: Optional[dict[str, Any]] = None
    ) -> int:
        """Saves a new version of `filename` and records it in this event's artifact_delta."""
        ctx = self._invocation_context
        kwargs: dict[str, Any] = {}
        if custom_metadata is not None:
            kwargs["custom_metadata"] = custom_metadata
        version = await self._artifact_service().save_artifact(
            app_name=ctx.app_name,
            user_id=ctx.user_id,
            session_id=ctx.session.id,
            filename=filename,
            artifact=artifact,
            **kwargs,
        )
        self._event_actions.artifact_delta[filename] = version
        return version

    async def load_artifact(self, filename: str, version: Optional[int] = None) -> Optional[types.Part]:
        ctx = self._invocation_context
        return await self._artifact_service().load_artifact(
            app_name=ctx.app_name,
            user_id=ctx.user_id,
            session_id=ctx.session.id,
            filename=filename,
            version=version,
        )

    async def list_artifacts(self) -> list[str]:
        ctx = self._invocation_context
        return await self._artifact_service().list_artifact_keys(
            app_name=ctx.app_name, user_id=ctx.user_id, session_id=ctx.session.id
        )

    # -- memory ------------------------------------------------------------------------------

    async def search_memory(self, query: str) -> SearchMemoryResponse:
        ctx = self._invocation_context
        if ctx.memory_service is None:
            raise ServiceNotConfiguredError(
                "This Runner has no memory service; pass memory_service=... to the Runner."
            )
        return await ctx.memory_service.search_memory(app_name=ctx.app_name, user_id=ctx.user_id, query=query)

    async def add_session_to_memory(self) -> None:
        ctx = self._invocation_context
        if ctx.memory_service is None:
            raise ServiceNotConfiguredError(
                "This Runner has no memory service; pass memory_service=... to the Runner."
            )
        await ctx.memory_service.add_session_to_memory(ctx.session)
