"""`chronicle bench serve`'s app behind google-adk's `adk api_server`: the same turn as the
Chronicle side (a model that calls record_order, then answers), written against google-adk."""

from typing import Any, AsyncGenerator

from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.adk.tools.tool_context import ToolContext
from google.genai import types


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

    async def generate_content_async(self, llm_request: Any, stream: bool = False) -> AsyncGenerator[LlmResponse, None]:
        last = llm_request.contents[-1].parts[0]
        if last.function_response is not None:
            part = types.Part(text="Your order is recorded.")
        else:
            part = types.Part(function_call=types.FunctionCall(name="record_order", args={"item": "coffee", "quantity": 2}))
        yield LlmResponse(content=types.Content(role="model", parts=[part]))


root_agent = LlmAgent(
    name="orders",
    model=CannedLlm(),
    instruction="You take orders. The user has ordered {orders?} times.",
    tools=[record_order],
)
