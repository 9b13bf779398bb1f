"""Errors as events: a tool that raises among parallel calls, one an error callback recovers, a
tool the model made up, and a model call that fails; the plugins' error hooks hear each in order."""

import asyncio

from google.adk.agents import LlmAgent
from google.adk.apps import App
from google.adk.plugins import BasePlugin

from tools.parity.apps.rule_model import call, model, say

HEARD: list = []  # the error hooks, in the order they ran, for the transcript


def kind(error):
    """The error's class, as ADK names it: an unknown tool is a `ValueError` in ADK, Chronicle's
    `ToolNotFoundError` is one (docs/adk.md)."""
    return "ValueError" if isinstance(error, ValueError) else type(error).__name__


class Listener(BasePlugin):
    async def on_model_error_callback(self, *, callback_context, llm_request, error):
        HEARD.append(f"on_model_error:{type(error).__name__}")

    async def on_tool_error_callback(self, *, tool, tool_args, tool_context, error):
        HEARD.append(f"on_tool_error:{tool.name}:{kind(error)}")

    async def on_agent_error_callback(self, *, agent, callback_context, error):
        HEARD.append(f"on_agent_error:{agent.name}:{type(error).__name__}")

    async def on_run_error_callback(self, *, invocation_context, error):
        HEARD.append(f"on_run_error:{type(error).__name__}")


async def check_stock(item: str) -> dict:
    """Returns how many of an item are in stock."""
    return {"item": item, "count": 3}


async def reserve(item: str) -> dict:
    """Reserves an item."""
    await asyncio.sleep(0.1)  # check_stock has answered by now
    raise ValueError(f"{item} cannot be reserved")


async def ship(item: str) -> dict:
    """Ships an item (slowly)."""
    await asyncio.sleep(30)  # cancelled when reserve fails
    return {"shipped": item}


def lookup_price(item: str) -> dict:
    """Returns an item's price."""
    raise KeyError(item)


def price_fallback(tool, args, tool_context, error):
    if tool.name == "lookup_price":  # the other tools' errors are not recovered
        return {"error": f"no price for {args['item']}"}
    return None


def rule(text, response, request):
    if response is not None:
        return say(f"{response.name}: {response.response}")
    if text == "order a lamp":
        return call("check_stock", item="lamp"), call("reserve", item="lamp"), call("ship", item="lamp")
    if text == "price of a lamp":
        return call("lookup_price", item="lamp")
    if text == "scan the lamp":
        return call("scan_barcode", item="lamp")  # a tool the agent does not have
    if text == "break the model":
        raise ConnectionError("the model is unreachable")
    return say(f"seen {len(request.contents)} contents")


def merged(turn):
    """One model turn holding several calls."""
    if isinstance(turn, tuple):
        return say("").model_copy(update={"parts": [p for c in turn for p in c.parts]})
    return turn


root_agent = LlmAgent(
    name="shop",
    model=model(lambda text, response, request: merged(rule(text, response, request))),
    tools=[check_stock, reserve, ship, lookup_price],
    on_tool_error_callback=price_fallback,
)

app = App(name="parity_errors", root_agent=root_agent, plugins=[Listener(name="listener")])

TURNS = ["order a lamp", "price of a lamp", "scan the lamp", "break the model", "what now?"]
