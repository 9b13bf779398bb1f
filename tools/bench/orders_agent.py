"""The order-taking agent of `chronicle bench runtime` and `chronicle bench serve`, written once
against the public names google-adk 2.13 and Chronicle share, and built with either library:
`build("runtime")` for Chronicle, `build("google.adk")` for google-adk (run in its own
environment, where this module imports nothing of Chronicle's).

A turn: the model calls `record_order` (which writes session and `user:` state), then answers.
The canned model decides from the request (a tool's result last: answer; else call), so
concurrent sessions each get their own call-then-answer.
"""

# No `from __future__ import annotations`: the tool's ToolContext annotation must be the class
# the chosen library imported, as each library's FunctionTool reads it.
import importlib
from typing import Any, AsyncGenerator, Optional

INSTRUCTION = "You take orders. The user has ordered {orders?} times."


def build(root: str = "runtime", *, model: Optional[Any] = None) -> Any:
    """The agent, from `root`'s LlmAgent, BaseLlm and ToolContext (`root` is "runtime" or
    "google.adk"); `model` replaces the canned model."""
    from google.genai import types

    LlmAgent = importlib.import_module(f"{root}.agents").LlmAgent
    BaseLlm = importlib.import_module(f"{root}.models.base_llm").BaseLlm
    LlmResponse = importlib.import_module(f"{root}.models.llm_response").LlmResponse
    ToolContext = importlib.import_module(f"{root}.tools.tool_context").ToolContext

    def record_order(item: str, quantity: int, tool_context: ToolContext) -> dict[str, Any]:
        """Records an order for the user.

        Args:
          item: What to order.
          quantity: How many.
        """
        state = tool_context.state
        state["last_item"] = item
        state["orders"] = int(state.get("orders") or 0) + 1
        state["user:lifetime_orders"] = int(state.get("user:lifetime_orders") or 0) + quantity
        return {"status": "ok", "order_number": state["orders"]}

    class CannedLlm(BaseLlm):
        model: str = "canned"

        async def generate_content_async(self, llm_request: Any, stream: bool = False) -> AsyncGenerator[Any, None]:
            if llm_request.contents[-1].parts[0].function_response is not None:
                part = types.Part(text="Your order is recorded.")
            else:
                part = types.Part(function_call=types.FunctionCall(name="record_order", args={"item": "coffee", "quantity": 2}))
            yield LlmResponse(content=types.Content(role="model", parts=[part]))

    return LlmAgent(name="orders", model=model or CannedLlm(), instruction=INSTRUCTION, tools=[record_order])
