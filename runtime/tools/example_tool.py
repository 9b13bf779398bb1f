"""ExampleTool: adds few-shot examples to the system instruction; the model never calls it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Union

from google.genai import types
from pydantic import TypeAdapter

from runtime.examples import BaseExampleProvider, Example
from runtime.tools.base_tool import BaseTool

if TYPE_CHECKING:
    from runtime.models import LlmRequest
    from runtime.tools.tool_context import ToolContext


class ExampleTool(BaseTool):
    def __init__(self, examples: Union[list[Example], BaseExampleProvider]):
        super().__init__(name="example_tool", description="example tool")
        self.examples = (
            TypeAdapter(list[Example]).validate_python(examples) if isinstance(examples, list) else examples
        )

    async def process_llm_request(self, *, tool_context: ToolContext, llm_request: LlmRequest) -> None:
        user = tool_context.user_content
        if not user or not user.parts:
            return
        query = " ".join(p.text for p in user.parts if p.text and not p.thought)
        if isinstance(self.examples, BaseExampleProvider):
            if not query:
                return
            examples = self.examples.get_examples(query)
        else:
            examples = self.examples
        llm_request.append_instructions([examples_text(examples, llm_request.model)])


def examples_text(examples: list[Example], model: Optional[str] = None) -> str:
    """The examples as google-adk 2.13 writes them into the prompt: numbered, [user]/[model] turns,
    calls as Python-like code (fenced ``tool_code``/``tool_outputs`` for a model that is not Gemini)."""
    gemini = model is None or "gemini-" in model
    text = ""
    for number, example in enumerate(examples, 1):
        text += f"EXAMPLE {number}:\nBegin example\n[user]\n"
        if example.input and example.input.parts:
            text += "\n".join(p.text for p in example.input.parts if p.text) + "\n"
        previous = None
        for content in example.output:
            role = "[model]\n" if content.role == "model" else "[user]\n"
            if role != previous:
                text += role
            previous = role
            for part in content.parts or []:
                text += _part_text(part, gemini)
        text += "End example\n\n"
    return ("<EXAMPLES>\nBegin few-shot\nThe following are examples of user queries and model responses using "
            f"the available tools.\n\n{text}End few-shot\n<EXAMPLES>")


def _part_text(part: types.Part, gemini: bool) -> str:
    if part.function_call:
        args = part.function_call.args if isinstance(part.function_call.args, dict) else {}
        written = ", ".join(f"{k}='{v}'" if isinstance(v, str) else f"{k}={v}" for k, v in args.items())
        return f"{'```' if gemini else '```tool_code'}\n{part.function_call.name}({written})\n```\n"
    if part.function_response:
        # The response object's fields as Python writes a dict: what google-adk puts in the prompt.
        return f"{'```' if gemini else '```tool_outputs'}\n{part.function_response.__dict__}\n```\n"
    return f"{part.text}\n" if part.text else ""
