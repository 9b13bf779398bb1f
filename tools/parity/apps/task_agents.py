"""A chat agent that hands work to a task-mode sub-agent (google-adk 2.13's task delegation): the
sub-agent is the chat agent's tool (its input_schema, else `request`); a call starts the task,
which talks with the user over turns until it calls finish_task; its result is then the call's
result and the chat agent goes on."""

from google.adk import Agent
from google.genai import types
from pydantic import BaseModel

from tools.parity.apps.rule_model import model, say

SHOW_NODES = True


class Booking(BaseModel):
    city: str
    nights: int


def booker_rule(text, response, request):
    if response is not None:
        return say("Booked.")
    said = [p.text for c in request.contents if c.role == "user" for p in c.parts or [] if p.text]
    nights = next((t for t in said if t.isdigit()), None)
    if nights is None:
        return say("How many nights?")
    finish = types.FunctionCall(id="call-9", name="finish_task", args={"city": "Oslo", "nights": int(nights)})
    return types.Content(role="model", parts=[types.Part(function_call=finish)])


booker = Agent(
    name="booker", mode="task", output_schema=Booking, model=model(booker_rule),
    description="Books a hotel.", instruction="Book a hotel; ask what you need.",
)


def lead_rule(text, response, request):
    if response is None:
        call = types.FunctionCall(id="call-1", name="booker", args={"request": "a hotel in Oslo"})
        return types.Content(role="model", parts=[types.Part(function_call=call)])
    return say(f"All set: {response.response}")


root_agent = Agent(name="lead", model=model(lead_rule), instruction="Help with travel.", sub_agents=[booker])

TURNS = ["book me a hotel in Oslo", "3"]
