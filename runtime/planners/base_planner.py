"""BasePlanner: what an LlmAgent's `planner` does to each model call."""

from __future__ import annotations

import abc
from typing import TYPE_CHECKING, Optional

from google.genai import types

if TYPE_CHECKING:
    from runtime.contexts import CallbackContext, ReadonlyContext
    from runtime.models import LlmRequest


class BasePlanner(abc.ABC):
    """A planner adds a planning instruction to each request and may rewrite the model's answer.

    With a planner other than BuiltInPlanner, the `thought` marks of earlier parts are left out
    of the request (the planner's own markup replaces them), as in google-adk."""

    @abc.abstractmethod
    def build_planning_instruction(
        self, readonly_context: ReadonlyContext, llm_request: LlmRequest
    ) -> Optional[str]:
        """The instruction to append to the system instruction, or None."""

    @abc.abstractmethod
    def process_planning_response(
        self, callback_context: CallbackContext, response_parts: list[types.Part]
    ) -> Optional[list[types.Part]]:
        """The parts to keep of a model answer (e.g. with the plan marked as thought), or None to
        keep them as they are."""
