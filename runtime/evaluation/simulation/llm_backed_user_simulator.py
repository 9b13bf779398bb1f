"""A simulated user driven by a model: the scenario's starting prompt first, then each message the model
writes from the plan and the conversation so far, until it sends the stop signal or the turn limit is met
(google-adk 2.13's behaviour; the default instructions are Chronicle's own wording)."""

from __future__ import annotations

import logging
from contextlib import aclosing
from typing import Any, ClassVar, Literal, Optional

from google.genai import types as genai_types
from pydantic import Field, field_validator

from ..conversation_scenarios import ConversationScenario
from .llm_backed_user_simulator_prompts import (REQUIRED, get_llm_backed_user_simulator_prompt,
                                                is_valid_user_simulator_template)
from .user_simulator import BaseUserSimulatorConfig, NextUserMessage, Status, UserSimulator

logger = logging.getLogger(__name__)
STOP_SIGNAL = "</finished>"


class LlmBackedUserSimulatorConfig(BaseUserSimulatorConfig):
    type: Literal["llm_backed"] = "llm_backed"
    model: str = "gemini-2.5-flash"
    model_configuration: genai_types.GenerateContentConfig = Field(
        default_factory=lambda: genai_types.GenerateContentConfig(
            thinking_config=genai_types.ThinkingConfig(include_thoughts=True, thinking_budget=10240)))
    # Counts the starting prompt; stops a conversation where agent and simulator never end. -1: no limit.
    max_allowed_invocations: int = 20
    custom_instructions: Optional[str] = None  # a Jinja template with the placeholders of the default
    include_function_calls: bool = False  # show the simulator the agent's tool calls and results too

    @field_validator("custom_instructions")
    @classmethod
    def _has_placeholders(cls, value: Optional[str]) -> Optional[str]:
        if value is not None and not is_valid_user_simulator_template(value, list(REQUIRED)):
            raise ValueError("custom_instructions must contain each of the following formatting placeholders "
                             "using Jinja syntax: {{ stop_signal }}, {{ conversation_plan }}, "
                             "{{ conversation_history }}")
        return value


class LlmBackedUserSimulator(UserSimulator):
    config_type: ClassVar[type[LlmBackedUserSimulatorConfig]] = LlmBackedUserSimulatorConfig

    def __init__(self, *, config: BaseUserSimulatorConfig, conversation_scenario: ConversationScenario):
        from runtime.models.registry import LLMRegistry

        super().__init__(config, config_type=LlmBackedUserSimulatorConfig)
        self._scenario = conversation_scenario
        self._invocation_count = 0
        self._llm = LLMRegistry.new_llm(self._config.model)

    @staticmethod
    def summarize_conversation(events: list[Any], include_function_calls: bool = False) -> str:
        """What the simulator reads of the conversation: `author: text` lines (thoughts left out), and the
        tool calls and results when asked."""
        lines = []
        for event in events:
            for part in (event.content.parts or []) if event.content else []:
                if part.text and not part.thought:
                    lines.append(f"{event.author}: {part.text}")
                elif include_function_calls and part.function_call:
                    lines.append(f"{event.author} called tool '{part.function_call.name}' with args: "
                                 f"{part.function_call.args}")
                elif include_function_calls and part.function_response:
                    lines.append(f"Tool '{part.function_response.name}' returned: {part.function_response.response}")
        return "\n\n".join(lines)

    async def _ask_model(self, history: str) -> tuple[str, Optional[str]]:
        """The model's message (thoughts left out), and why there is none when it is empty."""
        from runtime.models.llm_request import LlmRequest

        from ..llm_as_judge import RETRY_OPTIONS

        prompt = get_llm_backed_user_simulator_prompt(
            conversation_plan=self._scenario.conversation_plan, conversation_history=history,
            stop_signal=STOP_SIGNAL, custom_instructions=self._config.custom_instructions,
            user_persona=self._scenario.user_persona)
        config = self._config.model_configuration.model_copy(deep=True)
        config.http_options = config.http_options or genai_types.HttpOptions()
        config.http_options.retry_options = config.http_options.retry_options or RETRY_OPTIONS
        request = LlmRequest(model=self._config.model, config=config,
                             contents=[genai_types.Content(role="user", parts=[genai_types.Part(text=prompt)])])
        text, thought, error = "", False, None
        async with aclosing(self._llm.generate_content_async(request)) as responses:
            async for response in responses:
                if response.error_code:
                    logger.warning("User simulator model error %s: %s", response.error_code, response.error_message)
                    return "", f"safety filters or other error (code={response.error_code})"
                for part in (response.content.parts or []) if response.content else []:
                    if part.thought:
                        thought = True
                    elif part.text:
                        text += part.text
        if not text:
            error = "LLM returned only thinking tokens" if thought else "LLM returned empty response"
        return text, error

    async def get_next_user_message(self, events: list[Any]) -> NextUserMessage:
        limit = self._config.max_allowed_invocations
        if 0 <= limit <= self._invocation_count:
            logger.warning("User simulator turn limit (%d) reached.", limit)
            return NextUserMessage(status=Status.TURN_LIMIT_REACHED)
        if self._invocation_count == 0:
            text, error = self._scenario.starting_prompt, None
        else:
            text, error = await self._ask_model(self.summarize_conversation(events, self._config.include_function_calls))
        self._invocation_count += 1
        if text and STOP_SIGNAL.lower() in text.lower():
            return NextUserMessage(status=Status.STOP_SIGNAL_DETECTED)
        if text:
            return NextUserMessage(status=Status.SUCCESS,
                                   user_message=genai_types.Content(role="user", parts=[genai_types.Part(text=text)]))
        raise RuntimeError(f"Failed to generate a user message: {error}")
