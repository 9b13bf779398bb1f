"""A resumable app: a LoopAgent and a SequentialAgent record their checkpoints (agent_state,
end_of_agent) as they go, a long-running call pauses the invocation, and the client's answer
resumes it where it stopped."""

from google.adk.agents import LlmAgent, LoopAgent, SequentialAgent
from google.adk.apps import App, ResumabilityConfig
from google.adk.tools import LongRunningFunctionTool, ToolContext, exit_loop

from tools.parity.apps.rule_model import call, model, say


def draft(tool_context: ToolContext) -> dict:
    """Writes one more draft."""
    tool_context.state["drafts"] = tool_context.state.get("drafts", 0) + 1
    return {"drafts": tool_context.state["drafts"]}


def ask_editor(drafts: int) -> None:
    """Asks the editor to approve; the answer comes later."""
    return None


def writer_rule(text, response, request):
    if response is None:
        return call("draft")
    if response.name == "draft" and response.response["drafts"] >= 2:
        return call("exit_loop")
    if response.name == "exit_loop":
        return say("Drafts are ready.")
    return say(f"Draft {response.response['drafts']} written.")


def editor_rule(text, response, request):
    if response is None:
        return call("ask_editor", drafts=2)
    return say(f"The editor says: {response.response['verdict']}.")


writer = LlmAgent(name="writer", model=model(writer_rule), instruction="Write drafts.", tools=[draft, exit_loop])
editor = LlmAgent(
    name="editor", model=model(editor_rule), instruction="Get approval.", tools=[LongRunningFunctionTool(func=ask_editor)]
)
pipeline = SequentialAgent(name="pipeline", sub_agents=[LoopAgent(name="drafting", sub_agents=[writer], max_iterations=3), editor])
app = App(name="parity", root_agent=pipeline, resumability_config=ResumabilityConfig(is_resumable=True))

TURNS = ["write the essay", {"respond": {"verdict": "approved"}}]
