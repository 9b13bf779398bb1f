"""Nested artifact names, a user: file and custom metadata: one tool saves, another describes."""

from google.adk.agents import LlmAgent
from google.adk.tools import ToolContext
from google.genai import types

from tools.parity.apps.rule_model import call, model, say


async def write_report(topic: str, tool_context: ToolContext) -> dict:
    """Writes a report on a topic, and the brand's logo for every session of the user."""
    known = len(await tool_context.list_artifacts())  # so each version's metadata differs
    report = await tool_context.save_artifact(
        f"reports/{topic}.txt", types.Part(text=f"All about {topic}."), custom_metadata={"topic": topic, "known": known}
    )
    logo = await tool_context.save_artifact(
        "user:brand/logo.png", types.Part.from_bytes(data=b"\x89PNG", mime_type="image/png")
    )
    return {"report_version": report, "logo_version": logo}


async def describe(tool_context: ToolContext) -> dict:
    """Describes every artifact: newest version, its metadata and MIME type, and a text's content."""
    described = {}
    for name in await tool_context.list_artifacts():
        info = await tool_context.get_artifact_version(name)
        first = await tool_context.get_artifact_version(name, version=0)
        part = await tool_context.load_artifact(name)
        described[name] = {
            "version": info.version,
            "metadata": info.custom_metadata,
            "first_metadata": first.custom_metadata,
            "mime_type": info.mime_type,
            "text": part.text,
        }
    return {"artifacts": described}


def rule(text, response, request):
    if response is not None:
        return say(f"Done: {sorted(response.response)}")
    if text.startswith("describe"):
        return call("describe")
    return call("write_report", topic=text.split()[-1])


root_agent = LlmAgent(name="writer", model=model(rule), tools=[write_report, describe])

TURNS = ["write paris", "write paris", "write rome", "describe all"]
