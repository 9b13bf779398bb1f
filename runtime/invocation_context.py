"""Everything one invocation (one user message and what it causes) runs with."""

from __future__ import annotations

import copy
import uuid
from typing import TYPE_CHECKING, Any, Optional

from google.genai import types

from domain.errors import LlmCallsLimitExceededError
from domain.events import Event, EventActions
from domain.session import Session
from runtime.run_config import RunConfig

if TYPE_CHECKING:
    from runtime.agents.llm_context import LlmContextTracker
    from runtime.agents.base_agent import BaseAgent, BaseAgentState
    from runtime.plugins.plugin_manager import PluginManager


def new_invocation_context_id() -> str:
    return "e-" + str(uuid.uuid4())


class _InvocationShared:
    """What every copy of an invocation's context shares: the stop flag, the model-call budget,
    and (in resumable apps) which agents ended, paused or recorded a state."""

    __slots__ = (
        "end_invocation",
        "llm_calls",
        "llm_context",
        "resumable",
        "resuming",
        "start_index",
        "end_of_agents",
        "agent_states",
        "paused_agents",
        "started_agents",
        "restarted_agents",
        "trace",
        "custom_metadata",
        "credential_by_key",
    )

    def __init__(self, llm_context: Optional[LlmContextTracker] = None):
        self.end_invocation = False
        self.llm_calls = 0
        # Imported here: runtime.agents imports this module, so a top-level import would be a cycle
        # whenever this module is imported first (runtime.workflow does).
        from runtime.agents.llm_context import LlmContextTracker

        self.llm_context = llm_context if llm_context is not None else LlmContextTracker()
        self.resumable = False
        self.resuming = False
        self.start_index = 0
        self.end_of_agents: dict[str, bool] = {}
        self.agent_states: dict[str, dict[str, Any]] = {}
        self.paused_agents: set[str] = set()
        self.started_agents: set[str] = set()
        self.restarted_agents: set[str] = set()
        self.trace: Any = None  # the invocation's live spans when tracing is on (runtime.telemetry)
        self.custom_metadata: dict[str, Any] = {}
        self.credential_by_key: dict[str, Any] = {}


class InvocationContext:
    """The context of one invocation.

    Agents get a copy (with their own `agent` and `branch`); the copies share `session`, the
    services, `end_invocation` and the model-call count, so setting `end_invocation = True`
    anywhere stops the whole invocation after the current step.
    """

    def __init__(
        self,
        *,
        invocation_id: str,
        session: Session,
        agent: Optional[BaseAgent] = None,
        session_service: Any = None,
        artifact_service: Any = None,
        memory_service: Any = None,
        credential_service: Any = None,
        plugin_manager: Optional[PluginManager] = None,
        user_content: Optional[types.Content] = None,
        run_config: Optional[RunConfig] = None,
        branch: Optional[str] = None,
        end_invocation: bool = False,
        llm_context: Optional[LlmContextTracker] = None,
        is_resumable: bool = False,
        resumability_config: Any = None,
    ):
        if plugin_manager is None:
            from runtime.plugins.plugin_manager import PluginManager

            plugin_manager = PluginManager()
        self.invocation_id = invocation_id
        self.session = session
        self.agent = agent
        self.session_service = session_service
        self.artifact_service = artifact_service
        self.memory_service = memory_service
        self.credential_service = credential_service
        self.plugin_manager = plugin_manager
        self.user_content = user_content
        self.run_config = run_config or RunConfig()
        self.branch = branch
        self.trace_span: Any = None  # this agent's live span, the parent of the spans it starts
        # An agent run as a workflow node on its input alone (ADK's single_turn mode), which
        # google-adk prompts without the identity instruction.
        self.single_turn = False
        self._shared = _InvocationShared(llm_context)
        self._shared.end_invocation = end_invocation
        # google-adk 2.13 takes the app's ResumabilityConfig; Chronicle's older keyword stays
        self._shared.resumable = bool(is_resumable or getattr(resumability_config, "is_resumable", False))
        self._shared.custom_metadata.update(self.run_config.custom_metadata or {})

    # -- shared across the invocation's copies --------------------------------------------

    @property
    def custom_metadata(self) -> dict[str, Any]:
        """Metadata the invocation's callbacks and tools share, starting from RunConfig's
        ``custom_metadata`` (ADK's ``Context.custom_metadata``); not stored."""
        return self._shared.custom_metadata

    @property
    def credential_by_key(self) -> dict[str, Any]:
        """The credentials resolved for the agent's toolsets in this invocation, by credential key
        (runtime.agents.toolset_auth): held in memory for this invocation only, never stored."""
        return self._shared.credential_by_key

    @property
    def end_invocation(self) -> bool:
        return self._shared.end_invocation

    @end_invocation.setter
    def end_invocation(self, value: bool) -> None:
        self._shared.end_invocation = bool(value)

    @property
    def llm_call_count(self) -> int:
        return self._shared.llm_calls

    def increment_llm_call_count(self) -> None:
        """Counts one model call; raises LlmCallsLimitExceededError past `run_config.max_llm_calls`."""
        self._shared.llm_calls += 1
        limit = self.run_config.max_llm_calls
        if limit > 0 and self._shared.llm_calls > limit:
            raise LlmCallsLimitExceededError(
                f"Invocation {self.invocation_id} tried model call #{self._shared.llm_calls} but "
                f"RunConfig.max_llm_calls is {limit}. The agent may be looping on tool calls; "
                "check its tools and instructions, or raise max_llm_calls (0 means no limit)."
            )

    @property
    def llm_context(self) -> LlmContextTracker:
        """The incrementally folded LLM context of this session (see runtime.agents.llm_context)."""
        return self._shared.llm_context

    # -- pause and resume (ResumabilityConfig(is_resumable=True); see runtime.resume) -------------

    @property
    def is_resumable(self) -> bool:
        return self._shared.resumable

    @property
    def resuming(self) -> bool:
        """True when this run continues an invocation that has events in the log already."""
        return self._shared.resuming

    @property
    def end_of_agents(self) -> dict[str, bool]:
        """Agents that finished their part of this invocation."""
        return self._shared.end_of_agents

    @property
    def agent_states(self) -> dict[str, dict[str, Any]]:
        """The latest `agent_state` each agent recorded in this invocation."""
        return self._shared.agent_states

    @property
    def paused_agents(self) -> set[str]:
        """Agents that stopped in this run to wait for long-running tool results."""
        return self._shared.paused_agents

    def was_started(self, agent_name: str) -> bool:
        """Whether the agent had already run in this invocation before the current resume (and
        has not been started afresh since, as a loop's next iteration does)."""
        return agent_name in self._shared.started_agents and agent_name not in self._shared.restarted_agents

    def resumes(self, agent_name: str) -> bool:
        """Whether the agent picks up where its events in this invocation stop (a resumed
        invocation) rather than run afresh."""
        return self.is_resumable and self.resuming and agent_name not in self._shared.restarted_agents

    def should_pause_invocation(self, event: Event) -> bool:
        """True when `event` (a long-running tool call) pauses this resumable invocation."""
        from runtime.resume import should_pause

        return self.is_resumable and should_pause(event)

    def invocation_events(self, branch: Any = ..., *, log_only: bool = False) -> list[Event]:
        """This invocation's stored events (on `branch` only, when given); with `log_only`, the
        log-only ones among them too (domain.log_only)."""
        events = self.session.log_events() if log_only else self.session.live_events()[self._shared.start_index :]
        return [
            e for e in events if e.invocation_id == self.invocation_id and (branch is ... or e.branch == branch)
        ]

    def begin_resume(self, start_index: int, root_agent: Any) -> None:
        """Reads how far the invocation got from its events (from `start_index` on in the session's
        live events, `Session.live_events()`)."""
        shared = self._shared
        shared.resuming = True
        shared.start_index = start_index
        for event in self.invocation_events():
            if event.author not in shared.started_agents and root_agent is not None:
                # An agent has started if it, or an agent under it, has events here.
                agent = root_agent.find_agent(event.author)
                while agent is not None:
                    shared.started_agents.add(agent.name)
                    agent = agent.parent_agent
            state = event.actions.agent_state
            if state is not None:
                shared.agent_states[event.author] = dict(state)
                shared.end_of_agents.pop(event.author, None)  # as ADK: a state recorded after an end runs it again
                current = root_agent.find_agent(state.get("current_sub_agent") or "") if root_agent else None
                if current is not None:
                    self._forget_states(current)
            if event.actions.end_of_agent:
                shared.end_of_agents[event.author] = True
                shared.agent_states.pop(event.author, None)

    def reset_agent_states(self, agent: Any) -> None:
        """Starts `agent` and the agents under it afresh (a loop runs them again): their ends and
        states are forgotten, and in a resumed invocation they no longer resume."""
        for name in self._forget_states(agent):
            self._shared.restarted_agents.add(name)

    def _forget_states(self, agent: Any) -> list[str]:
        names: list[str] = []
        stack = [agent]
        while stack:
            current = stack.pop()
            self._shared.end_of_agents.pop(current.name, None)
            self._shared.agent_states.pop(current.name, None)
            names.append(current.name)
            stack.extend(current.sub_agents)
        return names

    def reset_sub_agent_states(self, agent_name: str) -> None:
        """google-adk's name: forgets the states of the agents under `agent_name`."""
        agent = self.agent.find_agent(agent_name) if self.agent is not None else None
        for sub_agent in agent.sub_agents if agent is not None else []:
            self.reset_agent_states(sub_agent)

    def set_agent_state(
        self, agent_name: str, *, agent_state: Optional[BaseAgentState] = None, end_of_agent: bool = False
    ) -> None:
        """Notes an agent's state, as google-adk does: ended (its state dropped), a new state (no
        longer ended), or neither (forgotten, so it runs afresh). Record it with the agent's
        `_create_agent_state_event(ctx)`."""
        shared = self._shared
        if end_of_agent:
            shared.end_of_agents[agent_name] = True
            shared.agent_states.pop(agent_name, None)
        elif agent_state is not None:
            shared.agent_states[agent_name] = agent_state.model_dump(mode="json")
            shared.end_of_agents[agent_name] = False
        else:
            shared.end_of_agents.pop(agent_name, None)
            shared.agent_states.pop(agent_name, None)

    def agent_state_event(
        self, agent_name: str, *, agent_state: Optional[dict[str, Any]] = None, end_of_agent: bool = False
    ) -> Event:
        """The event that records an agent's state (or that it ended), and notes it here."""
        if agent_state is not None:
            self._shared.agent_states[agent_name] = dict(agent_state)
        if end_of_agent:
            self._shared.end_of_agents[agent_name] = True
            self._shared.agent_states.pop(agent_name, None)
            agent_state = None  # an ended agent has no state left, as in google-adk
        return Event(
            invocation_id=self.invocation_id,
            author=agent_name,
            branch=self.branch,
            actions=EventActions(agent_state=agent_state, end_of_agent=True if end_of_agent else None),
        )

    # -- conveniences ----------------------------------------------------------------------

    @property
    def app_name(self) -> str:
        return self.session.app_name

    @property
    def user_id(self) -> str:
        return self.session.user_id

    def model_copy(self, *, update: Optional[dict[str, Any]] = None) -> InvocationContext:
        """A shallow copy (as ADK's pydantic context offers); shared parts stay shared."""
        clone = copy.copy(self)
        for key, value in (update or {}).items():
            if key == "end_invocation":
                clone.end_invocation = value
            else:
                setattr(clone, key, value)
        return clone

    def __repr__(self) -> str:
        agent = getattr(self.agent, "name", None)
        return (
            f"InvocationContext(invocation_id={self.invocation_id!r}, agent={agent!r}, "
            f"branch={self.branch!r}, session={self.session.id!r})"
        )
