"""Output schemas: without tools (response_schema), with tools (the set_model_response tool on the
Gemini API), a schema with nested models and lists with tools, an agent used as a tool with input and output schemas, and
output_key; in a SequentialAgent so each step's answer reaches the next."""

from typing import Optional

from google.adk.agents import LlmAgent, SequentialAgent
from google.adk.tools.agent_tool import AgentTool
from pydantic import BaseModel, Field

from tools.parity.apps.rule_model import call, model, say


class Capital(BaseModel):
    """A country's capital."""

    country: str = Field(description="The country's name.")
    capital: str
    population: Optional[int] = Field(default=None, description="Inhabitants.")


class Fact(BaseModel):
    text: str


class Facts(BaseModel):
    facts: list[Fact] = Field(description="What the expert said.")
    sources: list[str] = []


class Question(BaseModel):
    """What the expert is asked."""

    topic: str = Field(description="What about.")
    depth: int = 1


def lookup(country: str) -> dict:
    """Looks a country up."""
    return {"country": country, "capital": "Paris", "population": 2100000}


def plain_rule(text, response, request):
    return say('{"country": "France", "capital": "Paris"}')


def tooled_rule(text, response, request):
    if response is None:
        return call("lookup", country="France")
    if response.name == "lookup":
        return call("set_model_response", country="France", capital="Paris", population=2100000)
    return say("unexpected")


def facts_rule(text, response, request):
    if response is None:
        return call("expert", topic="Paris", depth=2)
    if response.name == "expert":
        return call("set_model_response", facts=[{"text": "Paris is old."}, {"text": "Paris is big."}])
    return say("unexpected")


def expert_rule(text, response, request):
    return say('{"text": "Paris has many bridges."}')


expert = LlmAgent(name="expert", model=model(expert_rule), description="Knows things.",
                  input_schema=Question, output_schema=Fact)
root_agent = SequentialAgent(name="pipeline", sub_agents=[
    LlmAgent(name="plain", model=model(plain_rule), instruction="Answer in JSON.", output_schema=Capital,
             output_key="plain_answer"),
    LlmAgent(name="tooled", model=model(tooled_rule), instruction="Look it up, then answer.", output_schema=Capital,
             tools=[lookup], output_key="tooled_answer"),
    LlmAgent(name="facts", model=model(facts_rule), instruction="Ask the expert. Last: {tooled_answer?}",
             output_schema=Facts, tools=[AgentTool(agent=expert)], output_key="facts"),
])

TURNS = ["What is the capital of France?"]
