"""Instructions and config: a global instruction on the root, `{state}` templating (scoped keys,
optional keys, an artifact), an instruction provider (a callable, sent as it returns), a
static_instruction of several parts with a dynamic instruction beside it, generate_content_config,
include_contents='none', and before_model callbacks that edit the request; in a SequentialAgent, so
each agent also sees the others' turns (texts, tool calls and results) over several turns."""

from google.adk.agents import LlmAgent, SequentialAgent
from google.adk.agents.callback_context import CallbackContext
from google.adk.agents.readonly_context import ReadonlyContext
from google.adk.models.llm_request import LlmRequest
from google.adk.tools import ToolContext
from google.genai import types

from tools.parity.apps.rule_model import call, model, say


async def note(topic: str, tool_context: ToolContext) -> dict:
    """Takes a note and files it."""
    tool_context.state["topic"] = topic
    tool_context.state["user:notes"] = tool_context.state.get("user:notes", 0) + 1
    await tool_context.save_artifact("brief.txt", types.Part.from_text(text=f"Brief about {topic}."))
    return {"noted": topic}


def planner_rule(text, response, request):
    # The callback appends a user text after the tool's result, so look for the result before it.
    results = [p.function_response for c in request.contents[-2:] for p in c.parts or [] if p.function_response]
    if results:
        return say(f"Noted {results[0].response['noted']}.")
    return call("note", topic=text.split()[-1])


def writer_rule(text, response, request):
    return say("Here is the draft.")


def editor_rule(text, response, request):
    return say("Edited.")


def provided(ctx: ReadonlyContext) -> str:
    return f"Edit for {ctx.state.get('user:name', 'someone')}. Braces stay: {{topic}}."


def add_rules(callback_context: CallbackContext, llm_request: LlmRequest):
    llm_request.append_instructions(["Never use jargon."])
    llm_request.config.temperature = 0.1
    llm_request.contents.append(types.Content(role="user", parts=[types.Part(text="(Be brief.)")]))
    return None


def tag_request(callback_context: CallbackContext, llm_request: LlmRequest):
    llm_request.config.stop_sequences = ["END"]
    return None


planner = LlmAgent(
    name="planner", model=model(planner_rule), description="Plans the work.",
    instruction="Plan for {user:name} in {app:city}. Topic so far: {topic?}. Missing: {nothing?}.",
    tools=[note],
    generate_content_config=types.GenerateContentConfig(
        temperature=0.2, top_p=0.9, max_output_tokens=256, seed=7,
        safety_settings=[types.SafetySetting(category=types.HarmCategory.HARM_CATEGORY_HARASSMENT,
                                             threshold=types.HarmBlockThreshold.BLOCK_ONLY_HIGH)],
    ),
    before_model_callback=add_rules,
)
writer = LlmAgent(
    name="writer", model=model(writer_rule),
    static_instruction=types.Content(role="user", parts=[types.Part(text="You write drafts."),
                                                         types.Part(text="Keep them short.")]),
    instruction="The brief: {artifact.brief.txt}. Notes so far: {user:notes}.",
    before_model_callback=[tag_request, add_rules],
)
editor = LlmAgent(name="editor", model=model(editor_rule), instruction=provided, include_contents="none",
                  output_key="edited")

studio = SequentialAgent(name="studio", description="Plans, writes and edits.",
                         sub_agents=[planner, writer, editor])


def front_rule(text, response, request):
    return call("transfer_to_agent", agent_name="studio") if "plan" in text else say("Hello.")


# The global instruction lives on the LlmAgent at the root; every agent below it gets it.
root_agent = LlmAgent(name="front", model=model(front_rule), global_instruction="Be kind to {user:name}.",
                      instruction="Hand work to the studio.", sub_agents=[studio])

INITIAL_STATE = {"user:name": "Ada", "app:city": "Paris"}
TURNS = ["hi", "plan the launch", "plan the party"]
