"""ExampleTool: adds few-shot examples to the system instruction; the model never calls it."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Union

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
        query = " ".join(p.text for p in user.parts if p.text)
        if isinstance(self.examples, BaseExampleProvider):
            if not query:
                return
            examples = self.examples.get_examples(query)
        else:
            examples = self.examples
        llm_request.append_instructions([examples_text(examples)])


def examples_text(examples: list[Example]) -> str:
    """The examples in the layout ADK's prompt uses: numbered, [user]/[model] turns, calls as code."""
    blocks = []
    for number, example in enumerate(examples, 1):
        lines = [f"EXAMPLE {number}:", "Begin example", "[user]"]
        lines += [p.text for p in example.input.parts or [] if p.text]
        previous = None
        for content in example.output:
            role = "[model]" if content.role == "model" else "[user]"
            if role != previous:
                lines.append(role)
            previous = role
            lines += [_part_text(p) for p in content.parts or [] if _part_text(p)]
        lines.append("End example\n")
        blocks.append("\n".join(lines))
    intro = ("<EXAMPLES>\nBegin few-shot\nThe following are examples of user queries and model responses "
             "using the available tools.\n\n")
    return intro + "\n".join(blocks) + "\nEnd few-shot\n<EXAMPLES>"


def _part_text(part: types.Part) -> str:
    if part.function_call:
        args = ", ".join(f"{k}={v!r}" for k, v in (part.function_call.args or {}).items())
        return f"```\n{part.function_call.name}({args})\n```"
    if part.function_response:
        response = {"name": part.function_response.name, "response": part.function_response.response}
        return f"```\n{json.dumps(response, default=str)}\n```"
    return part.text or ""
