"""Confirmations in a resumable app: a require_confirmation gate and a tool that asks itself, each
approved or rejected; the invocation pauses and the answer resumes it."""

from google.adk.agents import LlmAgent
from google.adk.apps import App, ResumabilityConfig
from google.adk.tools import FunctionTool, ToolContext
from google.genai import types

from tools.parity.apps.rule_model import model, say


def delete_file(name: str, tool_context: ToolContext) -> dict:
    """Deletes a file (always needs approval)."""
    tool_context.state["deleted"] = name
    return {"deleted": name}


def archive(name: str, tool_context: ToolContext) -> dict:
    """Archives a file; asks for approval itself the first time."""
    if tool_context.tool_confirmation is None:
        tool_context.request_confirmation(hint=f"Archive {name}?")
        return {"status": "asked"}
    tool_context.state["archived"] = name
    return {"archived": name}


def listing() -> dict:
    """Lists the files."""
    return {"files": ["a.txt", "b.txt"]}


def rule(text, response, request):
    results = [p.function_response for p in request.contents[-1].parts or [] if p.function_response]
    if results:
        return say("; ".join(f"{r.name}: {r.response}" for r in results))
    words = text.split()
    calls = [types.Part(function_call=types.FunctionCall(name=words[0], args={"name": words[1]}))]
    if "and list" in text:
        calls.append(types.Part(function_call=types.FunctionCall(name="listing", args={})))
    return types.Content(role="model", parts=calls)


agent = LlmAgent(name="files", model=model(rule), instruction="Manage files.",
                 tools=[FunctionTool(delete_file, require_confirmation=True), archive, listing])
app = App(name="parity", root_agent=agent, resumability_config=ResumabilityConfig(is_resumable=True))

TURNS = [
    "delete_file a.txt", {"confirm": True},
    "archive b.txt", {"confirm": True},
    "delete_file b.txt", {"confirm": False},
]
# Sibling calls are left out: a resumable app commits each call's result as its tool returns
# (docs/adk.md), where google-adk merges them into one event.
