"""Everything one invocation (one user message and what it causes) runs with."""

from __future__ import annotations

import copy
import uuid
from typing import TYPE_CHECKING, Any, Optional

from google.genai import types

from domain.errors import LlmCallsLimitExceededError
from domain.session import Session
from projections.llm_context import LlmContextTracker
from runtime.run_config import RunConfig

if TYPE_CHECKING:
    from runtime.agents.base_agent import BaseAgent
    from runtime.plugins.plugin_manager import PluginManager


def new_invocation_context_id() -> str:
    return "e-" + str(uuid.uuid4())


class _InvocationShared:
    """What every copy of an invocation's context shares: the stop flag and the model-call budget."""

    __slots__ = ("end_invocation", "llm_calls", "llm_context")

    def __init__(self, llm_context: Optional[LlmContextTracker] = None):
        self.end_invocation = False
        self.llm_calls = 0
        self.llm_context = llm_context if llm_context is not None else LlmContextTracker()


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
        self._shared = _InvocationShared(llm_context)
        self._shared.end_invocation = end_invocation

    # -- shared across the invocation's copies --------------------------------------------

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
        """The incrementally folded LLM context of this session (see projections.llm_context)."""
        return self._shared.llm_context

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
