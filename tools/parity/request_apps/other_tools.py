"""The other ADK tools' requests: a ComputerUseToolset over a small fake browser (the model is
told of it through Gemini's computer_use tool, and sees the screenshot as an image part of the
function response), ExecuteBashTool refusing a command its policy does not allow, and a
GoogleSearchAgentTool whose search agent carries Gemini's built-in search."""

from google.adk.agents import LlmAgent, SequentialAgent
from google.adk.tools.bash_tool import BashToolPolicy, ExecuteBashTool
from google.adk.tools.computer_use.base_computer import BaseComputer, ComputerEnvironment, ComputerState
from google.adk.tools.computer_use.computer_use_toolset import ComputerUseToolset
from google.adk.tools.google_search_agent_tool import GoogleSearchAgentTool, create_google_search_agent

from tools.parity.apps.rule_model import RuleModel, call, model, say

SCREEN = ComputerState(screenshot=b"\x89PNG fake screen", url="https://example.com/")


class FakeBrowser(BaseComputer):
    async def screen_size(self): return (1280, 720)
    async def environment(self): return ComputerEnvironment.ENVIRONMENT_BROWSER
    async def open_web_browser(self): return SCREEN
    async def click_at(self, x: int, y: int): return SCREEN
    async def hover_at(self, x: int, y: int): return SCREEN
    async def type_text_at(self, x: int, y: int, text: str, press_enter: bool = True, clear_before_typing: bool = True):
        return SCREEN
    async def scroll_document(self, direction: str): return SCREEN
    async def scroll_at(self, x: int, y: int, direction: str, magnitude: int): return SCREEN
    async def wait(self, seconds: int): return SCREEN
    async def go_back(self): return SCREEN
    async def go_forward(self): return SCREEN
    async def search(self): return SCREEN
    async def navigate(self, url: str): return SCREEN
    async def key_combination(self, keys: list[str]): return SCREEN
    async def drag_and_drop(self, x: int, y: int, destination_x: int, destination_y: int): return SCREEN
    async def current_state(self): return SCREEN


def browse_rule(text, response, request):
    return say("Clicked.") if response is not None else call("click_at", x=500, y=500)


def shell_rule(text, response, request):
    return say("Refused.") if response is not None else call("execute_bash", command="rm -rf /tmp/x")


def search_rule(text, response, request):
    return say("Sunny.")


def ask_rule(text, response, request):
    return say("It is sunny.") if response is not None else call("google_search_agent", request="weather")


searcher = create_google_search_agent(RuleModel(rule=search_rule, label="search_rule", model="gemini-2.5-flash"))
root_agent = SequentialAgent(name="other_tools", sub_agents=[
    LlmAgent(name="browser", model=model(browse_rule), instruction="Browse.",
             tools=[ComputerUseToolset(computer=FakeBrowser(), excluded_predefined_functions=["drag_and_drop"])]),
    LlmAgent(name="shell", model=model(shell_rule), instruction="Run commands.",
             tools=[ExecuteBashTool(policy=BashToolPolicy(allowed_command_prefixes=("ls", "echo")))]),
    LlmAgent(name="asker", model=model(ask_rule), instruction="Ask the searcher.", tools=[GoogleSearchAgentTool(searcher)]),
])

TURNS = ["go"]
