"""Agents: BaseAgent, the model-driven LlmAgent, and the workflow agents."""

from runtime.agents.base_agent import BaseAgent
from runtime.agents.instructions import InstructionVariableError
from runtime.agents.live_request_queue import LiveRequest, LiveRequestQueue
from runtime.agents.llm_agent import Agent, InstructionProvider, LlmAgent
from runtime.agents.loop_agent import LoopAgent
from runtime.agents.parallel_agent import ParallelAgent
from runtime.agents.sequential_agent import SequentialAgent
from runtime.invocation_context import InvocationContext
from runtime.run_config import RunConfig

__all__ = [
    "Agent",
    "BaseAgent",
    "InstructionProvider",
    "InstructionVariableError",
    "InvocationContext",
    "LiveRequest",
    "LiveRequestQueue",
    "LlmAgent",
    "LoopAgent",
    "ParallelAgent",
    "RunConfig",
    "SequentialAgent",
]
