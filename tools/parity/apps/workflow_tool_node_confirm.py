"""Tool nodes that ask a person to confirm: one whose tool calls
`tool_context.request_confirmation(hint=, payload=)` itself, one whose FunctionTool sets
`require_confirmation`. As google-adk 2.13, each node waits with its `adk_request_input` (id
`wf_tool_confirmation:<path>`, the hint as its message, the tool's payload), and the answer runs the
tool again, which reads `tool_context.tool_confirmation`; a rejection of the required one answers
for the tool."""

from google.adk import Event, Workflow
from google.adk.tools import FunctionTool, ToolContext

SHOW_PATHS = True


def transfer(amount: int, tool_context: ToolContext) -> dict:
    """Moves money, once a person confirms a large amount."""
    confirmation = tool_context.tool_confirmation
    if amount > 100 and confirmation is None:
        tool_context.request_confirmation(hint=f"Move {amount}?", payload={"limit": 100})
        return {"status": "waiting for a person"}
    if confirmation is not None and not confirmation.confirmed:
        return {"status": "refused"}
    return {"status": "moved", "amount": amount, "payload": confirmation.payload if confirmation else None}


def close_account(reason: str = "moved away") -> dict:
    """Closes the account."""
    return {"closed": reason}


def report(node_input: dict):
    yield Event(message=f"transfer: {node_input}")


def final(node_input: dict):
    yield Event(message=f"account: {node_input}")


root_agent = Workflow(name="bank", edges=[
    ("START", FunctionTool(transfer), report, FunctionTool(close_account, require_confirmation=True), final),
])

TURNS = [
    '{"amount": 250}',
    {"respond": {"confirmed": True, "payload": {"limit": 500}}},
    {"respond": {"confirmed": False}},
    '{"amount": 20}',
    {"respond": {"confirmed": True}},
]
