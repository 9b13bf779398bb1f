"""A model that answers in place of an agent's own for one invocation.

google-adk's conformance replay swaps the model inside the flow (`flows/llm_flows/core/_model_call.py`)
so that the request the stand-in sees is the final one, after every callback. Chronicle does the
same through this seam: whoever owns an invocation (the conformance ReplayPlugin) registers a
factory for it, and the agent asks `model_for` before calling its own model.
"""

from __future__ import annotations

from typing import Callable, Optional

from .base_llm import BaseLlm

ModelFactory = Callable[[str], Optional[BaseLlm]]  # agent name -> the stand-in, or None for the agent's own

_factories: dict[str, ModelFactory] = {}


def override_models(invocation_id: str, factory: ModelFactory) -> None:
    _factories[invocation_id] = factory


def clear_override(invocation_id: str) -> None:
    _factories.pop(invocation_id, None)


def model_for(invocation_id: str, agent_name: str) -> Optional[BaseLlm]:
    factory = _factories.get(invocation_id)
    return factory(agent_name) if factory is not None else None
