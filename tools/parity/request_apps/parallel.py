"""Branches: a ParallelAgent's agents each see only their own branch (and what came before it),
each with a tool call; the agent after it sees both branches' turns as other agents' turns.

The tools are async: a sync tool runs in a thread on both runtimes, so which branch's events come
first would be a race, on google-adk as on Chronicle."""

from google.adk.agents import LlmAgent, ParallelAgent, SequentialAgent

from tools.parity.apps.rule_model import call, model, say


async def price(item: str) -> dict:
    """Gives an item's price."""
    return {"item": item, "eur": 3}


async def stock(item: str) -> dict:
    """Gives an item's stock."""
    return {"item": item, "left": 12}


def pricer(text, response, request):
    return say(f"Price: {response.response['eur']} EUR.") if response is not None else call("price", item="tea")


def stocker(text, response, request):
    return say(f"Stock: {response.response['left']}.") if response is not None else call("stock", item="tea")


def reporter(text, response, request):
    return say("Tea costs 3 EUR and 12 are left.")


root_agent = SequentialAgent(name="shop", sub_agents=[
    ParallelAgent(name="lookups", sub_agents=[
        LlmAgent(name="pricer", model=model(pricer), instruction="Find the price.", tools=[price]),
        LlmAgent(name="stocker", model=model(stocker), instruction="Find the stock.", tools=[stock]),
    ]),
    LlmAgent(name="reporter", model=model(reporter), instruction="Report both."),
])

TURNS = ["tea please", "and again"]
