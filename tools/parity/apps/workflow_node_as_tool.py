"""Nodes as an agent's tools: a Workflow (its input schema from its entry node) and an `@node`
generator that asks a person (RequestInput) before it answers: the answer runs the call again,
the node resumes with it, and the model then sees the node's output, never its messages.
(workflow_node_as_tool_resumable runs the same agent in a resumable app.)"""

from google.adk import Agent, Context, Event, Workflow
from google.adk.apps import App
from google.adk.events import RequestInput
from google.adk.workflow import node
from pydantic import BaseModel, Field

from google.genai import types

from tools.parity.apps.rule_model import model, say

SHOW_NODES = True


class Order(BaseModel):
    order_id: str = Field(description="The order's number.")


def find_order(node_input: Order):
    return {"order_id": node_input.order_id, "item": "phone", "price": 300}


order_lookup = Workflow(
    name="order_lookup",
    description="Finds an order by its number.",
    input_schema=Order,
    edges=[("START", find_order)],
)


@node(rerun_on_resume=True)
def refund(item: str, price: int, ctx: Context):
    """Refunds an item.

    Args:
      item: what is refunded.
      price: what it cost.
    """
    yield Event(message=f"Checking the refund of a {item}...")
    answer = ctx.resume_inputs.get("approve_refund")
    if not answer:
        yield RequestInput(interrupt_id="approve_refund", message=f"Refund {price} for the {item}?")
        return
    yield f"refunded {price}" if answer.get("text") == "yes" else "refund declined"


def call(name, call_id, **args):  # with its own id: a node tool's path and branch carry it
    return types.Content(role="model", parts=[types.Part(function_call=types.FunctionCall(id=call_id, name=name, args=args))])


def clerk(text, response, request):
    if response is None:
        return call("order_lookup", "call-1", order_id="A7")
    if response.name == "order_lookup":
        return call("refund", "call-2", item=response.response["item"], price=response.response["price"])
    return say(f"Done: {response.response}")


app = App(
    name="node_tools",
    root_agent=Agent(name="clerk", model=model(clerk), instruction="Help with orders.", tools=[order_lookup, refund]),
)

TURNS = ["refund order A7", {"respond": {"text": "yes"}}]
