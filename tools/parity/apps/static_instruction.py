"""static_instruction: the fixed text goes first in the system instruction, and the dynamic
instruction (with state filled in) becomes a marked user content before the current turn."""

from google.adk.agents import LlmAgent
from google.adk.tools import ToolContext

from tools.parity.apps.rule_model import call, model, say


def remember(city: str, tool_context: ToolContext) -> dict:
    """Remembers the user's city."""
    tool_context.state["city"] = city
    return {"city": city}


def rule(text, response, request):
    # The marked instruction may follow the tool's result, so look for the result before it.
    results = [p.function_response for p in request.contents[-2].parts or [] if p.function_response]
    if response is None and results:
        response = results[0]
    if response is not None:
        return say(f"Noted: {response.response['city']}.")
    words = [c.parts[0].text for c in request.contents if c.role == "user" and c.parts[0].text]
    said = [w for w in words if "BEGIN_SYSTEM_INSTRUCTION" not in w]
    return call("remember", city=said[-1].split()[-1])


root_agent = LlmAgent(
    name="concierge",
    model=model(rule),
    static_instruction="You are a concierge. Be brief.",
    instruction="The user lives in {city?}.",
    tools=[remember],
)

TURNS = ["I live in Paris", "now I moved to Lyon"]
