"""Plugins that edit the request: GlobalInstructionPlugin (a text with state, first in the system
instruction), ContextFilterPlugin (only the last invocations) and a plugin of the app's own that
adds an instruction and a config field, over several turns with tool calls."""

from typing import Optional

from google.adk.agents import LlmAgent
from google.adk.agents.callback_context import CallbackContext
from google.adk.apps.app import App
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.plugins.base_plugin import BasePlugin
from google.adk.plugins.context_filter_plugin import ContextFilterPlugin
from google.adk.plugins.global_instruction_plugin import GlobalInstructionPlugin

from tools.parity.apps.rule_model import call, model, say


class HouseRules(BasePlugin):
    async def before_model_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest
    ) -> Optional[LlmResponse]:
        llm_request.append_instructions([f"House rules for {callback_context.agent_name}: be brief."])
        llm_request.config.candidate_count = 1
        return None


def count(word: str) -> int:
    """Counts the letters of a word."""
    return len(word)


def rule(text, response, request):
    if response is not None:
        return say(f"{response.response['result']} letters.")
    return call("count", word=text.split()[-1])


app = App(
    name="plugins",
    root_agent=LlmAgent(name="counter", model=model(rule), instruction="Count letters.", tools=[count]),
    plugins=[GlobalInstructionPlugin("Be nice to {user:name}."), ContextFilterPlugin(num_invocations_to_keep=2),
             HouseRules(name="house_rules")],
)

INITIAL_STATE = {"user:name": "Ada"}
TURNS = ["count apple", "count banana", "count cherry", "count kiwi"]
