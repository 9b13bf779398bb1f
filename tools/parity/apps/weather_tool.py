"""A tool that writes session state, an instruction template, and output_key."""

from google.adk.agents import LlmAgent
from google.adk.tools import ToolContext

from tools.parity.apps.rule_model import call, model, say


def get_weather(city: str, tool_context: ToolContext) -> dict:
    """Returns the weather in a city."""
    tool_context.state["last_city"] = city
    return {"city": city, "forecast": "sunny" if city == "Paris" else "rain", "celsius": 21}


def rule(text, response, request):
    if response is not None:
        return say(f"{response.response['city']}: {response.response['forecast']}, {response.response['celsius']}C")
    return call("get_weather", city=text.split()[-1].strip("?"))


root_agent = LlmAgent(
    name="forecaster",
    model=model(rule),
    instruction="You tell {user:name} the weather. Last city: {last_city?}.",
    tools=[get_weather],
    output_key="answer",
)

INITIAL_STATE = {"user:name": "Ann"}
TURNS = ["weather in Paris", "and in Rome?"]
