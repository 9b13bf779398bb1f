"""More tool shapes: a toolset with a name prefix, few-shot examples (ExampleTool), get_user_choice,
exit_loop inside a LoopAgent, parallel calls in one model turn, a user message with an image and
a file, and an AgentTool whose agent has tools of its own and skips summarization."""

from google.adk.agents import LlmAgent, LoopAgent, SequentialAgent
from google.adk.examples.example import Example
from google.adk.tools import FunctionTool, exit_loop, get_user_choice
from google.adk.tools.agent_tool import AgentTool
from google.adk.tools.base_toolset import BaseToolset
from google.adk.tools.example_tool import ExampleTool
from google.genai import types

from tools.parity.apps.rule_model import call, model, say


def add(a: int, b: int) -> int:
    """Adds two numbers."""
    return a + b


def sub(a: int, b: int) -> int:
    """Subtracts b from a."""
    return a - b


class MathTools(BaseToolset):
    async def get_tools(self, readonly_context=None):
        return [FunctionTool(add), FunctionTool(sub)]

    async def close(self):
        pass


EXAMPLES = [Example(
    input=types.Content(role="user", parts=[types.Part(text="What is 2 plus 2?")]),
    output=[
        types.Content(role="model", parts=[types.Part(function_call=types.FunctionCall(name="math_add",
                                                                                       args={"a": 2, "b": 2}))]),
        types.Content(role="user", parts=[types.Part(function_response=types.FunctionResponse(
            name="math_add", response={"result": 4}))]),
        types.Content(role="model", parts=[types.Part(text="It is 4.")]),
    ],
)]


def calc_rule(text, response, request):
    if response is not None:
        return say("Computed.")
    return types.Content(role="model", parts=[
        types.Part(function_call=types.FunctionCall(name="math_add", args={"a": 1, "b": 2})),
        types.Part(function_call=types.FunctionCall(name="math_sub", args={"a": 5, "b": 3})),
    ])


def helper_rule(text, response, request):
    if response is not None:
        return say("Helper done.")
    return call("math_add", a=40, b=2)


def loop_rule(text, response, request):
    if response is not None:
        return say("stopping")
    return call("exit_loop")


helper = LlmAgent(name="helper", model=model(helper_rule), description="Does sums.",
                  tools=[MathTools(tool_name_prefix="math")])
root_agent = SequentialAgent(name="bench", sub_agents=[
    LlmAgent(name="calc", model=model(calc_rule), instruction="Calculate.",
             tools=[MathTools(tool_name_prefix="math"), ExampleTool(EXAMPLES), get_user_choice,
                    AgentTool(agent=helper, skip_summarization=True)]),
    LoopAgent(name="loop", max_iterations=3, sub_agents=[
        LlmAgent(name="looper", model=model(loop_rule), instruction="Stop at once.", tools=[exit_loop]),
    ]),
])

TURNS = [
    "compute please",
    types.Content(role="user", parts=[
        types.Part(text="and this picture"),
        types.Part.from_bytes(data=b"\x89PNG\r\n", mime_type="image/png"),
        types.Part(file_data=types.FileData(file_uri="gs://bucket/report.pdf", mime_type="application/pdf")),
    ]),
]
