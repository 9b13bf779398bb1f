"""Artifacts: load_artifacts' declaration, its instruction listing the session's files (joined to the
system instruction after every tool's, as 2.13 does), and the files it puts in the request the
model asks for them in (text, JSON, an image, and bytes it cannot show)."""

from google.adk.agents import LlmAgent
from google.adk.tools import ToolContext, load_artifacts, load_memory
from google.genai import types

from tools.parity.apps.rule_model import call, model, say


async def save_files(tool_context: ToolContext) -> dict:
    """Saves the session's files."""
    await tool_context.save_artifact("notes.txt", types.Part.from_bytes(data=b"buy milk", mime_type="text/plain"))
    await tool_context.save_artifact("data.json", types.Part.from_bytes(data=b'{"a": 1}', mime_type="application/json"))
    await tool_context.save_artifact("pixel.png", types.Part.from_bytes(data=b"\x89PNG\r\n", mime_type="image/png"))
    await tool_context.save_artifact("blob.bin", types.Part.from_bytes(data=b"\x00\x01" * 600,
                                                                       mime_type="application/octet-stream"))
    return {"saved": 4}


def rule(text, response, request):
    if response is not None and response.name == "save_files":
        return say("Saved.")
    if response is not None:
        return say("I read them.")
    if "save" in text:
        return call("save_files")
    if "read" in text:
        return call("load_artifacts", artifact_names=["notes.txt", "data.json", "pixel.png", "blob.bin", "missing"])
    return say("Hello.")


root_agent = LlmAgent(name="filer", model=model(rule), instruction="Keep files.",
                      tools=[load_artifacts, save_files, load_memory])

TURNS = ["hello", "save my files", "read them back", "thanks"]
