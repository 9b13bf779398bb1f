"""The contexts user code gets: ReadonlyContext (instruction providers) and Context.

As in ADK 2.x, one class, `Context`, is what callbacks and tools get: `CallbackContext` and
`ToolContext` are other names for it. A tool's context also knows its function call
(`function_call_id`) and can pause the invocation to ask a person something: a confirmation
(`request_confirmation`) or a credential (`request_credential`)."""

from __future__ import annotations

from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Mapping, Optional, Sequence

from google.genai import types

from domain.errors import ChronicleError, InvalidArgumentError
from domain.events import Event, EventActions
from domain.session import Session
from domain.state import State

if TYPE_CHECKING:
    from domain.artifact_versions import ArtifactVersion
    from runtime.auth.auth_credential import AuthCredential
    from runtime.auth.auth_tool import AuthConfig
    from runtime.invocation_context import InvocationContext
    from runtime.tools.tool_confirmation import ToolConfirmation
    from runtime.memory.base import MemoryEntry, SearchMemoryResponse


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
        agent = self._invocation_context.agent
        return agent.name if agent is not None else "unknown"  # no agent yet: google-adk 2.13's placeholder

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

    def get_credential(self, key: Optional[str]) -> Optional[AuthCredential]:
        """The credential resolved for a toolset in this invocation under this credential key."""
        return self._invocation_context.credential_by_key.get(key)

    @property
    def custom_metadata(self) -> Mapping[str, Any]:
        """The invocation's shared metadata (read-only here; a Context can change it)."""
        return MappingProxyType(self._invocation_context.custom_metadata)


class Context(ReadonlyContext):
    """What callbacks and tools get: delta-tracking `state`, the `actions` of the event being
    built, artifacts, memory, credentials, and (in a tool) the confirmation/credential requests.

    A write to `state` is visible at once to everything else in the invocation (dirty read) and is
    recorded in `actions.state_delta`, so it is committed with the event that carries these actions.
    """

    def __init__(
        self,
        invocation_context: InvocationContext,
        *,
        event_actions: Optional[EventActions] = None,
        function_call_id: Optional[str] = None,
        tool_confirmation: Optional[ToolConfirmation] = None,
    ) -> None:
        super().__init__(invocation_context)
        self._event_actions = event_actions if event_actions is not None else EventActions()
        self._state = State(value=invocation_context.session.state, delta=self._event_actions.state_delta)
        self.function_call_id = function_call_id
        """The id of the function call this context runs (None outside a tool)."""
        self.tool_confirmation = tool_confirmation
        """The person's answer, when the call runs again after a confirmation request."""

    @property
    def invocation_context(self) -> InvocationContext:
        return self._invocation_context

    def get_invocation_context(self) -> InvocationContext:
        return self._invocation_context

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
                "Artifact service is not initialized. Pass artifact_service=... to the Runner "
                "(InMemoryRunner provides one)."
            )
        return service

    async def save_artifact(
        self, filename: str, artifact: types.Part, custom_metadata: Optional[dict[str, Any]] = None
    ) -> int:
        """Saves a new version of `filename` and records it in this event's artifact_delta."""
        ctx = self._invocation_context
        version = await self._artifact_service().save_artifact(
            app_name=ctx.app_name,
            user_id=ctx.user_id,
            session_id=ctx.session.id,
            filename=filename,
            artifact=artifact,
            custom_metadata=custom_metadata,
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

    async def get_artifact_version(self, filename: str, version: Optional[int] = None) -> Optional[ArtifactVersion]:
        """The metadata of a version of `filename` (the newest when None): its number, URI,
        custom_metadata, creation time and MIME type; None when there is no such version."""
        ctx = self._invocation_context
        return await self._artifact_service().get_artifact_version(
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

    @property
    def custom_metadata(self) -> dict[str, Any]:  # type: ignore[override]
        """The invocation's shared metadata, starting from RunConfig's ``custom_metadata``."""
        return self._invocation_context.custom_metadata

    def _memory_service(self, refusal: str) -> Any:
        """The memory service; without one, ADK's `refusal` and how to give one."""
        service = self._invocation_context.memory_service
        if service is None:
            raise ServiceNotConfiguredError(f"{refusal} Pass memory_service=... to the Runner.")
        return service

    async def search_memory(self, query: str) -> SearchMemoryResponse:
        ctx = self._invocation_context
        service = self._memory_service("Memory service is not available.")
        return await service.search_memory(app_name=ctx.app_name, user_id=ctx.user_id, query=query)

    async def add_session_to_memory(self) -> None:
        service = self._memory_service("Cannot add session to memory: memory service is not available.")
        await service.add_session_to_memory(self._invocation_context.session)

    async def add_events_to_memory(
        self, *, events: Sequence[Event], custom_metadata: Optional[Mapping[str, object]] = None
    ) -> None:
        """Adds these events to the memory of this session's user (scoped to this session)."""
        session = self._invocation_context.session
        await self._memory_service("Cannot add events to memory: memory service is not available.").add_events_to_memory(
            app_name=session.app_name, user_id=session.user_id, session_id=session.id,
            events=events, custom_metadata=custom_metadata,
        )

    async def add_memory(
        self, *, memories: Sequence[MemoryEntry], custom_metadata: Optional[Mapping[str, object]] = None
    ) -> None:
        """Writes these memories for this session's user, for services that take them directly."""
        session = self._invocation_context.session
        await self._memory_service("Cannot add memory: memory service is not available.").add_memory(
            app_name=session.app_name, user_id=session.user_id, memories=memories, custom_metadata=custom_metadata
        )

    # -- asking a person (tools only) ---------------------------------------------------------

    def _require_call(self, method: str) -> str:
        if not self.function_call_id:
            raise InvalidArgumentError(
                f"{method} requires function_call_id. This method can only be used in a tool context, "
                "not a callback context."
            )
        return self.function_call_id

    def request_confirmation(self, *, hint: Optional[str] = None, payload: Any = None) -> None:
        """Asks a person to approve this call. The runtime answers the call with "requires
        confirmation", sends the client an `adk_request_confirmation` call and pauses; the
        approved call then runs again with `tool_confirmation` set (a rejected one never runs)."""
        from runtime.tools.tool_confirmation import ToolConfirmation

        call_id = self._require_call("request_confirmation")
        self._event_actions.requested_tool_confirmations[call_id] = ToolConfirmation(hint=hint or "", payload=payload)

    def request_credential(self, auth_config: AuthConfig) -> None:
        """Asks the client for a credential: the runtime sends an `adk_request_credential` call and
        pauses; when the client answers, the credential is kept by the credential service (never
        in the log) and this call runs again, where `get_auth_response` returns it."""
        call_id = self._require_call("request_credential")
        self._event_actions.requested_auth_configs[call_id] = auth_config.model_copy(deep=True)

    def get_auth_response(self, auth_config: AuthConfig) -> Optional[AuthCredential]:
        """The credential the client sent for `auth_config` in this invocation, if any."""
        from runtime.auth import auth_handler

        return auth_handler.AuthHandler(auth_config).get_auth_response(self._invocation_context.session.state)

    def _credential_service(self) -> Any:
        service = self._invocation_context.credential_service
        if service is None:
            raise ServiceNotConfiguredError(
                "Credential service is not initialized. Pass credential_service=... to the Runner "
                "(InMemoryCredentialService, or credential_service_from_url(store_url))."
            )
        return service

    async def save_credential(self, auth_config: AuthConfig) -> None:
        await self._credential_service().save_credential(auth_config, self)

    async def load_credential(self, auth_config: AuthConfig) -> Optional[AuthCredential]:
        return await self._credential_service().load_credential(auth_config, self)


CallbackContext = Context
