"""A shop assistant: Gemini through the real google-genai SDK (base URL from $GOOGLE_GEMINI_BASE_URL)."""

import base64

from google.genai import types

from runtime import FunctionTool, Gemini, LlmAgent, ToolContext
from runtime.tools.request_input_tool import request_input

# A 4x4 PNG (a small orange square): an image artifact the viewer previews inline.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAIAAAAmkwkpAAAAEElEQVR4nGP438AARwzEcQB+ohfxXaFgBQAAAABJRU5ErkJggg=="
)


async def add_to_cart(item: str, quantity: int, tool_context: ToolContext) -> dict:
    """Puts an item in the cart.

    Args:
      item: What to buy.
      quantity: How many.
    """
    cart = dict(tool_context.state.get("cart", {}))
    cart[item] = cart.get(item, 0) + quantity
    tool_context.state["cart"] = cart
    tool_context.state["user:last_item"] = item
    tool_context.state["app:items_sold"] = tool_context.state.get("app:items_sold", 0) + quantity
    lines = "\n".join(f"{name} x{n}" for name, n in cart.items())
    await tool_context.save_artifact("cart.txt", types.Part(text=lines))
    await tool_context.save_artifact("label.png", types.Part.from_bytes(data=PNG, mime_type="image/png"))
    return {"cart": cart}


def checkout(total: int) -> dict:
    """Charges the customer's card.

    Args:
      total: The amount to charge.
    """
    return {"charged": total, "status": "paid"}


root_agent = LlmAgent(
    name="clerk",
    description="Sells things.",
    model=Gemini(model="gemini-2.5-flash", api_key="test-key"),
    instruction="You run a small shop.",
    tools=[add_to_cart, FunctionTool(checkout, require_confirmation=True), request_input],
)
