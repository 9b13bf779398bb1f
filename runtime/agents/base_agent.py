"""BaseAgent: a named node of the agent tree that turns an invocation into a stream of events."""

from __future__ import annotations

import inspect
import logging
from typing import Any, AsyncGenerator, Callable, Mapping, Optional, TypeVar, Union

from google.genai import types
from pydantic import BaseModel, ConfigDict, Field, field_validator

from domain.errors import InvalidArgumentError
from domain.events import Event
from runtime.callbacks import as_list, first_result
from runtime.contexts import CallbackContext
from runtime.invocation_context import InvocationContext
from runtime.telemetry import live as telemetry

logger = logging.getLogger(__name__)

AgentCallback = Callable[..., Any]
"""`callback(callback_context=CallbackContext) -> Optional[types.Content]`, sync or async."""


class BaseAgentState(BaseModel):
    """What an agent records (`actions.agent_state`) so a resumed invocation goes on where it was.

    Subclasses add fields (LoopAgentState, SequentialAgentState); an agent reads its own back with
    `self._load_agent_state(ctx, TheState)` and records it with `ctx.set_agent_state(...)` and
    `yield self._create_agent_state_event(ctx)`, as in google-adk."""

    model_config = ConfigDict(extra="forbid")


AgentState = TypeVar("AgentState", bound=BaseAgentState)
SelfAgent = TypeVar("SelfAgent", bound="BaseAgent")


class BaseAgent(BaseModel):
    """Subclasses implement `_run_async_impl(ctx)` as an async generator of events.

    Each event an agent yields is committed by the Runner before the agent resumes, so code after a
    `yield` sees the stored session (and the state the event carried).

    In a resumable app (`ResumabilityConfig(is_resumable=True)`) an agent records an `end_of_agent`
    event when it finishes, is skipped when a resumed invocation reaches it after it finished, and
    stops without finishing when it (or a sub-agent) pauses on a long-running tool call.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    name: str
    description: str = ""
    parent_agent: Optional[BaseAgent] = Field(default=None, exclude=True, repr=False)
    sub_agents: list[BaseAgent] = Field(default_factory=list, repr=False)
    before_agent_callback: Optional[Union[AgentCallback, list[AgentCallback]]] = None
    """Runs before the agent; returning a Content skips the agent and answers with that content."""
    after_agent_callback: Optional[Union[AgentCallback, list[AgentCallback]]] = None
    """Runs after the agent; returning a Content adds it as the agent's last event."""
    rerun_on_resume: bool = False
    """As a workflow node: whether the agent runs again when its workflow resumes after it paused
    (google-adk 2.13's node field; runtime.workflow.graph carries it to the agent's node)."""

    @field_validator("name")
    @classmethod
    def _check_name(cls, name: str) -> str:
        # google-adk 2.13's words (its node check, then its agent check), so code matching them works.
        if not name.isidentifier():
            raise InvalidArgumentError(f"Node name '{name}' must be a valid Python identifier.")
        if name == "user":
            raise InvalidArgumentError("Agent name cannot be `user`. `user` is reserved for end-user's input.")
        return name

    def model_post_init(self, __context: Any) -> None:
        _warn_duplicate_names(self)
        for sub_agent in self.sub_agents:
            if sub_agent.parent_agent is not None and sub_agent.parent_agent is not self:
                raise InvalidArgumentError(  # google-adk 2.13's sentence, then how to fix it
                    f"Agent `{sub_agent.name}` already has a parent agent, current parent: "
                    f"`{sub_agent.parent_agent.name}`, trying to add: `{self.name}`. Create a separate "
                    "agent instance for each parent."
                )
            sub_agent.parent_agent = self

    def clone(self: SelfAgent, update: Optional[Mapping[str, Any]] = None) -> SelfAgent:
        """A copy of this agent (and, unless `update` names `sub_agents`, of its sub-agents), with
        the fields in `update` replaced. The copy has no parent; list fields are copied, and a
        callback that is a method of this agent is bound to the copy instead."""
        update = dict(update or {})
        if "parent_agent" in update:
            raise InvalidArgumentError(  # google-adk 2.13's words
                "Cannot update `parent_agent` field in clone. Parent agent is set only when the parent "
                "agent is instantiated with the sub-agents."
            )
        unknown = set(update) - set(type(self).model_fields)
        if unknown:
            raise InvalidArgumentError(f"Cannot update nonexistent fields in {type(self).__name__}: {unknown}")
        copied = self.model_copy(update=update)

        def rebound(value: Any) -> Any:
            if inspect.ismethod(value) and value.__self__ is self:
                return value.__func__.__get__(copied)
            return value

        for name in type(copied).model_fields:
            if name in ("sub_agents", "parent_agent") or name in update:
                continue
            value = getattr(copied, name)
            if isinstance(value, list):
                setattr(copied, name, [rebound(item) for item in value])
            elif inspect.ismethod(value):
                setattr(copied, name, rebound(value))
        if "sub_agents" not in update:
            copied.sub_agents = [sub_agent.clone() for sub_agent in self.sub_agents]
        for sub_agent in copied.sub_agents:
            sub_agent.parent_agent = copied
        copied.parent_agent = None
        copied._clear_caches()
        return copied

    def _clear_caches(self) -> None:
        """Drops what an agent caches about its own fields (a clone must not share it)."""

    # pydantic compares fields; the tree has cycles (parent <-> sub-agents), so compare by identity.
    def __eq__(self, other: object) -> bool:
        return self is other

    __hash__ = object.__hash__

    # -- the tree ----------------------------------------------------------------------------

    @property
    def root_agent(self) -> BaseAgent:
        agent = self
        while agent.parent_agent is not None:
            agent = agent.parent_agent
        return agent

    def find_agent(self, name: str) -> Optional[BaseAgent]:
        """This agent or one of its descendants, by name."""
        if self.name == name:
            return self
        return self.find_sub_agent(name)

    def find_sub_agent(self, name: str) -> Optional[BaseAgent]:
        for sub_agent in self.sub_agents:
            found = sub_agent.find_agent(name)
            if found is not None:
                return found
        return None

    @property
    def canonical_before_agent_callbacks(self) -> list[AgentCallback]:
        return as_list(self.before_agent_callback)

    @property
    def canonical_after_agent_callbacks(self) -> list[AgentCallback]:
        return as_list(self.after_agent_callback)

    # -- running -----------------------------------------------------------------------------

    async def run_async(self, parent_context: InvocationContext) -> AsyncGenerator[Event, None]:
        """Runs the agent: before-callbacks, `_run_async_impl`, after-callbacks. An exception that
        escapes any of them is reported to the plugins' `on_agent_error_callback`, then raised."""
        ctx = self._create_invocation_context(parent_context)
        span = telemetry.agent_started(ctx)
        failure: Optional[Exception] = None
        agen = self._run_with_callbacks(ctx)
        try:
            async for event in agen:
                yield event
        except Exception as error:
            failure = error
            await ctx.plugin_manager.run_on_agent_error_callback(
                agent=self, callback_context=CallbackContext(ctx), error=error
            )
            raise
        finally:
            await agen.aclose()
            telemetry.agent_ended(ctx, span, failure)

    async def _run_with_callbacks(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        resumable = ctx.is_resumable
        if resumable and ctx.end_of_agents.get(self.name):
            return  # a resumed invocation: this agent finished its part before
        if not (resumable and ctx.was_started(self.name)):
            event, skip = await self._handle_before_agent_callback(ctx)
            if event is not None:
                yield event
            if skip or ctx.end_invocation:
                if resumable and skip and not ctx.end_invocation:
                    # Chronicle records the skipped agent as finished, so a resume never runs it.
                    ctx.set_agent_state(self.name, end_of_agent=True)
                    yield self._create_agent_state_event(ctx)
                return
        agen = self._run_async_impl(ctx)
        try:
            async for event in agen:
                if resumable and event.author == self.name and ctx.should_pause_invocation(event):
                    ctx.paused_agents.add(self.name)
                yield event
        finally:
            await agen.aclose()
        if ctx.end_invocation:
            return
        if resumable and (
            self.name in ctx.paused_agents or any(a.name in ctx.paused_agents for a in self.sub_agents)
        ):
            # Paused: waits for long-running tool results; neither finished nor after-called.
            ctx.paused_agents.add(self.name)
            return
        if resumable and not ctx.end_of_agents.get(self.name):
            # Recorded before the after-callbacks run, where google-adk records it.
            ctx.set_agent_state(self.name, end_of_agent=True)
            yield self._create_agent_state_event(ctx)
        event = await self._handle_after_agent_callback(ctx)
        if event is not None:
            yield event

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        raise NotImplementedError(f"{type(self).__name__} must implement _run_async_impl")
        yield  # pragma: no cover - makes this an async generator

    async def run_live(self, parent_context: InvocationContext) -> AsyncGenerator[Event, None]:
        raise NotImplementedError("Live (bidirectional streaming) runs are not supported yet; use run_async.")
        yield  # pragma: no cover

    def _create_invocation_context(self, parent_context: InvocationContext) -> InvocationContext:
        return parent_context.model_copy(update={"agent": self})

    # -- resumable runs: the agent's recorded state ---------------------------------------------

    def _load_agent_state(self, ctx: InvocationContext, state_type: type[AgentState]) -> Optional[AgentState]:
        """The state this agent recorded earlier in a resumed invocation, or None."""
        raw = ctx.agent_states.get(self.name)
        return None if raw is None else state_type.model_validate(raw)

    def _create_agent_state_event(self, ctx: InvocationContext) -> Event:
        """The event recording this agent's state (or that it ended) as set on `ctx`."""
        return ctx.agent_state_event(
            self.name, agent_state=ctx.agent_states.get(self.name), end_of_agent=bool(ctx.end_of_agents.get(self.name))
        )

    async def _handle_before_agent_callback(self, ctx: InvocationContext) -> tuple[Optional[Event], bool]:
        plugins = ctx.plugin_manager
        callbacks = self.canonical_before_agent_callbacks
        if not callbacks and not plugins.has("before_agent_callback"):
            return None, False
        callback_context = CallbackContext(ctx)
        content = await plugins.run_before_agent_callback(agent=self, callback_context=callback_context)
        if content is None and callbacks:
            content = await first_result(callbacks, callback_context=callback_context)
        if content is not None:
            return self._callback_event(ctx, callback_context, content), True
        if callback_context.state.has_delta() or callback_context.actions.artifact_delta:
            return self._callback_event(ctx, callback_context, None), False
        return None, False

    async def _handle_after_agent_callback(self, ctx: InvocationContext) -> Optional[Event]:
        plugins = ctx.plugin_manager
        callbacks = self.canonical_after_agent_callbacks
        if not callbacks and not plugins.has("after_agent_callback"):
            return None
        callback_context = CallbackContext(ctx)
        content = await plugins.run_after_agent_callback(agent=self, callback_context=callback_context)
        if content is None and callbacks:
            content = await first_result(callbacks, callback_context=callback_context)
        if content is not None or callback_context.state.has_delta() or callback_context.actions.artifact_delta:
            return self._callback_event(ctx, callback_context, content)
        return None

    def _callback_event(
        self, ctx: InvocationContext, callback_context: CallbackContext, content: Optional[types.Content]
    ) -> Event:
        if content is not None and not isinstance(content, types.Content):
            raise InvalidArgumentError(
                f"An agent callback of {self.name!r} returned {type(content).__name__}; "
                "return a google.genai.types.Content (or None to continue)."
            )
        return Event(
            invocation_id=ctx.invocation_id,
            author=self.name,
            branch=ctx.branch,
            content=content,
            actions=callback_context.actions,
        )


def _subtree_names(agent: BaseAgent) -> list[str]:
    names = [agent.name]
    for sub_agent in agent.sub_agents:
        names.extend(_subtree_names(sub_agent))
    return names


def _warn_duplicate_names(agent: BaseAgent) -> None:
    """Logs a warning (as google-adk 2.13 does; it does not refuse them) when two agents under
    `agent`, or `agent` and one below it, share a name: find_agent() returns the first one a
    depth-first walk meets, so transfers to that name may reach the wrong agent."""
    seen: set[str] = set()
    duplicates: set[str] = set()
    for sub_agent in agent.sub_agents:
        names = set(_subtree_names(sub_agent))
        duplicates |= seen & names
        seen |= names
    if agent.name in seen:
        duplicates.add(agent.name)
    if duplicates:
        logger.warning(
            "Found duplicate agent names: %s. Every agent in a tree needs a unique name; "
            "find_agent() returns the first match in a depth-first walk.",
            ", ".join(f"`{name}`" for name in sorted(duplicates)),
        )


# google-adk 2.13's callback type aliases at its path (their home: runtime.agents.callback_types).
from runtime.agents.callback_types import AfterAgentCallback, BeforeAgentCallback  # noqa: E402
