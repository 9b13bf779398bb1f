"""The one way the simulation asks its model something: a prompt in, a JSON value out."""

from __future__ import annotations

import json
import re
from contextlib import aclosing
from typing import Any

from google.genai import types as genai_types

from runtime.models.llm_request import LlmRequest
from runtime.models.registry import LLMRegistry

_FENCE_START = re.compile(r"^```[a-zA-Z]*\n")
_FENCE_END = re.compile(r"\n```$")


class SimulationModel:
    """A model named in the config (resolved now, so a bad name fails when the simulation is made)."""

    def __init__(self, model_name: str, config: genai_types.GenerateContentConfig):
        self.model_name = model_name
        self.config = config
        self.llm = LLMRegistry.new_llm(model_name)

    async def ask(self, prompt: str) -> str:
        """The model's text answer to `prompt`, asking for JSON."""
        config = self.config.model_copy(update={"response_mime_type": "application/json"})
        request = LlmRequest(
            model=self.model_name,
            contents=[genai_types.Content(role="user", parts=[genai_types.Part(text=prompt)])],
            config=config,
        )
        text = ""
        async with aclosing(self.llm.generate_content_async(request)) as responses:
            async for response in responses:
                for part in (response.content.parts or []) if response.content else []:
                    text += part.text or ""
        return text


def parse_json(text: str) -> Any:
    """The JSON in a model's answer, with a Markdown code fence around it or not (JSONDecodeError if none)."""
    return json.loads(_FENCE_END.sub("", _FENCE_START.sub("", text)).strip())
