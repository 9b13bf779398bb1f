"""load_memory over what earlier turns said: the entries' fields and order (google-adk's
InMemoryMemoryService: the memories sharing the most words with the query first, ties in the
order they were said)."""

from google.adk.agents import LlmAgent
from google.adk.agents.callback_context import CallbackContext
from google.adk.tools import load_memory

from tools.parity.apps.rule_model import call, model, say


async def remember(callback_context: CallbackContext):
    await callback_context.add_session_to_memory()


def rule(text, response, request):
    if response is not None:
        memories = response.response["memories"]
        return say(f"I remember {len(memories)} things.")
    if text.startswith("recall"):
        return call("load_memory", query=text.removeprefix("recall "))
    return say("Noted.")


root_agent = LlmAgent(
    name="diary",
    model=model(rule),
    instruction="Keep a diary.",
    tools=[load_memory],
    after_agent_callback=remember,
)

TURNS = [
    "My dog is called Biscuit.",
    "We walk in the hills every morning, my dog and I.",
    "The weather is nice today.",
    "Hills hills hills, walk walk walk.",
    "recall dog walk in the hills",
    "recall weather",
]
