"""Output schemas that are not a pydantic model class, as google-adk 2.13 takes them: `list[Model]`,
`list[str]`, a dict (a JSON schema) and a `types.Schema` sent as response_schema, a `list[Model]`
through set_model_response (with tools), each answer read back into output_key (a fenced answer
too); in a SequentialAgent so each step's state reaches the next instruction."""

from google.adk.agents import LlmAgent, SequentialAgent
from google.genai import types
from pydantic import BaseModel, Field

from tools.parity.apps.rule_model import call, model, say


class City(BaseModel):
    """A city."""

    name: str = Field(description="The city's name.")
    river: str | None = None


CITY_SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}, "rank": {"type": "integer"}},
               "required": ["name"]}
RANKING = types.Schema(type=types.Type.ARRAY, items=types.Schema(type=types.Type.STRING), description="Best first.")


def cities(country: str) -> list:
    """Lists a country's big cities."""
    return ["Paris", "Lyon"]


def answer(text):
    return lambda *_: say(text)


def tooled_rule(text, response, request):
    if response is None:
        return call("cities", country="France")
    if response.name == "cities":
        return call("set_model_response", items=[{"name": "Paris", "river": "Seine"}, {"name": "Lyon"}])
    return say("unexpected")


root_agent = SequentialAgent(name="schemas", sub_agents=[
    LlmAgent(name="models", model=model(answer('[{"name": "Paris", "river": "Seine"}, {"name": "Lyon"}]')),
             instruction="List cities.", output_schema=list[City], output_key="models"),
    LlmAgent(name="words", model=model(answer('```json\n["Paris", "Lyon"]\n```')),
             instruction="Name them again. Before: {models?}", output_schema=list[str], output_key="words"),
    LlmAgent(name="raw", model=model(answer('{"name": "Lyon", "rank": 2}')),
             instruction="The second: {words?}", output_schema=CITY_SCHEMA, output_key="raw"),
    LlmAgent(name="typed", model=model(answer('["Paris", "Lyon", "Marseille"]')),
             instruction="Rank them. So far: {raw?}", output_schema=RANKING, output_key="typed"),
    LlmAgent(name="tooled", model=model(tooled_rule), instruction="Look them up. Ranked: {typed?}",
             output_schema=list[City], tools=[cities], output_key="tooled"),
    LlmAgent(name="closing", model=model(answer("Done.")), instruction="Found: {tooled?}"),
])

TURNS = ["Which cities of France matter?"]
