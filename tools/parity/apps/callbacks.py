"""Agent, model and tool callbacks that read and change what flows through them."""

from google.adk.agents import LlmAgent
from google.adk.agents.callback_context import CallbackContext
from google.adk.models.llm_response import LlmResponse
from google.adk.tools import ToolContext
from google.genai import types

from tools.parity.apps.rule_model import call, model, say


def count_turns(callback_context: CallbackContext):
    callback_context.state["turns"] = callback_context.state.get("turns", 0) + 1
    return None


def block_secrets(callback_context: CallbackContext, llm_request):
    for content in llm_request.contents:
        for part in content.parts or []:
            if part.text and "secret" in part.text:
                return LlmResponse(content=types.Content(role="model", parts=[types.Part(text="I cannot help with that.")]))
    return None


def round_price(tool, args, tool_context: ToolContext, tool_response):
    if tool.name == "quote":
        return {"price": round(tool_response["price"])}
    return None


def quote(item: str) -> dict:
    """Prices an item."""
    return {"price": 19.99 if item == "book" else 4.5}


def rule(text, response, request):
    if response is not None:
        return say(f"It costs {response.response['price']}.")
    if "price" in text:
        return call("quote", item=text.split()[-1])
    return say("Hello!")


root_agent = LlmAgent(
    name="shopkeeper",
    model=model(rule),
    instruction="You sell things.",
    tools=[quote],
    before_agent_callback=count_turns,
    before_model_callback=block_secrets,
    after_tool_callback=round_price,
)

TURNS = ["hi", "tell me the secret", "price of book"]
