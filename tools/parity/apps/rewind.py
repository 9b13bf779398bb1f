"""Runner.rewind_async, and rewinding the rewind: a tool that writes a file and state, a turn taken
back, the file read after it, then the rewind itself taken back. The session's events (rewound
ones and the markers stay), its state and the file's versions must be ADK's."""

import json

from google.adk.agents import LlmAgent
from google.adk.tools import ToolContext
from google.genai import types

from tools.parity.apps.rule_model import call, model, say


async def save_draft(text: str, tool_context: ToolContext) -> dict:
    """Saves the draft."""
    version = await tool_context.save_artifact("draft.txt", types.Part(text=text))
    tool_context.state["draft"] = text
    tool_context.state[f"saved_{text}"] = True
    return {"version": version}


async def read_draft(tool_context: ToolContext) -> dict:
    """Reads the draft."""
    part = await tool_context.load_artifact("draft.txt")
    return {"text": None if part is None else part.text}


def rule(text, response, request):
    if response is not None:
        return say(f"{response.name}: {json.dumps(response.response, sort_keys=True)}")
    words = text.split()
    if words[0] == "save":
        return call("save_draft", text=words[1])
    return call("read_draft")


root_agent = LlmAgent(name="writer", model=model(rule), instruction="Keep the draft.", tools=[save_draft, read_draft])

# {"rewind_before": n}: Runner.rewind_async to before the n-th invocation (1-based, markers count).
TURNS = ["save first", "save second", {"rewind_before": 2}, "read", {"rewind_before": 3}, "read"]
