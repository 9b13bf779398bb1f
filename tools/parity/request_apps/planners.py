"""Planners: BuiltInPlanner (its thinking config in the request) and PlanReActPlanner (its planning
instruction, and earlier thoughts left out of the request), each over a tool call and its result."""

from google.adk.agents import LlmAgent, SequentialAgent
from google.adk.planners import BuiltInPlanner, PlanReActPlanner
from google.genai import types

from tools.parity.apps.rule_model import model


def weather(city: str) -> dict:
    """Returns the weather of a city."""
    return {"city": city, "sky": "clear"}


def planned(text, response, request):
    if response is None:
        return types.Content(role="model", parts=[
            types.Part(text="/*PLANNING*/ 1. look up the weather /*ACTION*/"),
            types.Part(function_call=types.FunctionCall(name="weather", args={"city": "Oslo"})),
        ])
    return types.Content(role="model", parts=[
        types.Part(text="/*REASONING*/ It is clear. /*FINAL_ANSWER*/ Clear skies in Oslo."),
    ])


def thinking(text, response, request):
    if response is None:
        return types.Content(role="model", parts=[
            types.Part(text="I should check.", thought=True),
            types.Part(function_call=types.FunctionCall(name="weather", args={"city": "Rome"})),
        ])
    return types.Content(role="model", parts=[types.Part(text="Sunny in Rome.")])


root_agent = SequentialAgent(name="forecasters", sub_agents=[
    LlmAgent(name="thinker", model=model(thinking), instruction="Think, then answer.", tools=[weather],
             planner=BuiltInPlanner(thinking_config=types.ThinkingConfig(include_thoughts=True, thinking_budget=512))),
    LlmAgent(name="planner", model=model(planned), instruction="Plan, then answer.", tools=[weather],
             planner=PlanReActPlanner()),
])

TURNS = ["weather please", "again please"]
