"""ExecuteBashTool's approval idiom (a command runs only once a person approves it; a command the
policy does not allow is refused before anyone is asked), beside a tool answered by environment
simulation's injected response instead of running."""

from google.adk.agents import LlmAgent
from google.adk.apps import App
from google.adk.tools.bash_tool import BashToolPolicy, ExecuteBashTool
from google.adk.tools.environment_simulation import EnvironmentSimulationFactory
from google.adk.tools.environment_simulation.environment_simulation_config import (
    EnvironmentSimulationConfig,
    InjectionConfig,
    ToolSimulationConfig,
)

from tools.parity.apps.rule_model import call, model, say


def lookup_order(order_id: str) -> dict:
    """Looks an order up in the shop's database."""
    return {"order_id": order_id, "source": "database"}


def rule(text, response, request):
    if response is not None:
        return say(f"Result: {response.response}")
    if text.startswith("order"):
        return call("lookup_order", order_id=text.split()[-1])
    return call("execute_bash", command=text.removeprefix("run "))


SIMULATION = EnvironmentSimulationConfig(tool_simulation_configs=[ToolSimulationConfig(
    tool_name="lookup_order",
    injection_configs=[InjectionConfig(match_args={"order_id": "A1"}, injected_response={"order_id": "A1", "status": "shipped"})],
)])

root_agent = LlmAgent(
    name="operator",
    model=model(rule),
    instruction="You run commands and look orders up.",
    tools=[ExecuteBashTool(policy=BashToolPolicy(allowed_command_prefixes=("echo",))), lookup_order],
)
app = App(name="bash_and_simulation", root_agent=root_agent, plugins=[EnvironmentSimulationFactory.create_plugin(SIMULATION)])

TURNS = ["run echo hello", {"confirm": True}, "run echo bye", {"confirm": False}, "run rm -rf /tmp/nothing",
         "order A1", "order B2"]
