"""The tools ADK ships that apps use most, each through a real Runner run: exit_loop,
load_artifacts (on every store), get_user_choice, google_search, url_context, ExampleTool,
BaseToolset's filter and prefix, TransferToAgentTool's reason."""

from __future__ import annotations

import pytest
from google.genai import types

from domain.errors import InvalidArgumentError
from runtime import Gemini, LlmAgent, LoopAgent, Runner, ScriptedLlm
from runtime.artifacts import artifact_service_from_url
from runtime.examples import BaseExampleProvider, Example
from runtime.models import LlmRequest
from runtime.sessions import session_service_from_url
from runtime.tools import (
    BaseToolset,
    ExampleTool,
    FunctionTool,
    GoogleSearchTool,
    TransferToAgentTool,
    exit_loop,
    get_user_choice,
    google_search,
    load_artifacts,
    url_context,
)
from tests.gemini_server import GeminiServer, gemini_server  # noqa: F401 - fixture
from tests.rt_helpers import SESSION, USER, new_runner, send, stored, texts


def system_text(request: LlmRequest) -> str:
    return str(request.config.system_instruction)


async def test_exit_loop_ends_the_loop():
    model = ScriptedLlm(["draft 1", "draft 2", ScriptedLlm.call("exit_loop"), "never said"])
    writer = LlmAgent(name="writer", model=model, tools=[exit_loop])
    runner = await new_runner(LoopAgent(name="loop", max_iterations=10, sub_agents=[writer]))
    events = await send(runner, "write")
    assert texts(events) == ["draft 1", "draft 2"]
    assert model.turns_played == 3  # skip_summarization: no model call after exit_loop
    last = events[-1]
    assert last.actions.escalate and last.actions.skip_summarization


async def test_load_artifacts_puts_them_in_the_next_request_only(store_url):
    sessions = session_service_from_url(store_url)
    artifacts = artifact_service_from_url(store_url)
    await sessions.create_session(app_name="app", user_id=USER, session_id=SESSION)
    save = dict(app_name="app", user_id=USER, session_id=SESSION)
    await artifacts.save_artifact(**save, filename="notes.txt",
                                  artifact=types.Part.from_bytes(data=b"buy milk", mime_type="text/plain"))
    await artifacts.save_artifact(**save, filename="photo.png",
                                  artifact=types.Part.from_bytes(data=b"\x89PNG..", mime_type="image/png"))
    await artifacts.save_artifact(**save, filename="user:profile.bin",
                                  artifact=types.Part.from_bytes(data=b"\x00\x01", mime_type="application/octet-stream"))
    model = ScriptedLlm([
        ScriptedLlm.call("load_artifacts", artifact_names=["notes.txt", "photo.png", "profile.bin", "../secret"]),
        "You need milk.",
        "Anything else?",
    ])
    runner = Runner(agent=LlmAgent(name="clerk", model=model, tools=[load_artifacts]), app_name="app",
                    session_service=sessions, artifact_service=artifacts)
    events = [e async for e in runner.run_async(user_id=USER, session_id=SESSION,
                                                new_message=types.Content(role="user", parts=[types.Part(text="notes?")]))]
    assert texts(events) == ["You need milk."]
    first, second = model.requests
    assert '["notes.txt", "photo.png", "user:profile.bin"]' in system_text(first)
    assert [d.name for t in first.config.tools for d in t.function_declarations] == ["load_artifacts"]
    loaded = second.contents[-3:]
    assert [c.parts[0].text for c in loaded] == ["Artifact notes.txt is:", "Artifact photo.png is:", "Artifact profile.bin is:"]
    assert loaded[0].parts[1].text == "buy milk"
    assert loaded[1].parts[1].inline_data.data == b"\x89PNG.."  # images go to Gemini as they are
    assert loaded[2].parts[1].text.startswith("[Binary artifact: profile.bin, type: application/octet-stream")
    # Only in that request: the session holds the tool's answer, not the artifacts' contents.
    session = await sessions.get_session(app_name="app", user_id=USER, session_id=SESSION)
    assert "buy milk" not in str([e.to_json_dict() for e in session.events])
    assert session.events[2].get_function_responses()[0].response["artifact_names"][-1] == "../secret"
    # The next turn does not load them again.
    [e async for e in runner.run_async(user_id=USER, session_id=SESSION, new_message=types.Content(
        role="user", parts=[types.Part(text="thanks")]))]
    assert not any(c.parts[0].text == "Artifact notes.txt is:" for c in model.requests[-1].contents)
    await runner.close()


async def test_get_user_choice_waits_for_the_users_pick():
    model = ScriptedLlm([ScriptedLlm.call("get_user_choice", options=["tea", "coffee"]), "Coffee it is."])
    runner = await new_runner(LlmAgent(name="barista", model=model, tools=[get_user_choice]))
    events = await send(runner, "a drink?")
    call = events[0].get_function_calls()[0]
    assert call.id in events[0].long_running_tool_ids and model.turns_played == 1
    pick = types.Content(role="user", parts=[types.Part(function_response=types.FunctionResponse(
        id=call.id, name="get_user_choice", response={"result": "coffee"}))])
    later = [e async for e in runner.run_async(user_id=USER, session_id=SESSION, new_message=pick)]
    assert texts(later) == ["Coffee it is."]
    assert model.requests[-1].contents[-1].parts[0].function_response.response == {"result": "coffee"}


async def test_google_search_and_url_context_are_declared_as_gemini_built_ins():
    model = ScriptedLlm(["Grounded."], model="gemini-2.5-flash")

    def lookup(term: str) -> str:
        """Looks a term up."""
        return term

    runner = await new_runner(LlmAgent(name="a", model=model, tools=[google_search, url_context, lookup]))
    await send(runner, "news?")
    [request] = model.requests
    assert types.Tool(google_search=types.GoogleSearch()) in request.config.tools
    assert types.Tool(url_context=types.UrlContext()) in request.config.tools
    assert set(request.tools_dict) == {"lookup"}  # never run locally


async def test_built_ins_refuse_other_models_and_search_can_pick_its_model():
    runner = await new_runner(LlmAgent(name="a", model=ScriptedLlm(["x"]), tools=[url_context]))
    with pytest.raises(InvalidArgumentError, match="is not supported for model"):
        await send(runner, "hi")
    model = ScriptedLlm(["x"])
    runner = await new_runner(LlmAgent(name="b", model=model, tools=[GoogleSearchTool(model="gemini-2.5-pro")]))
    await send(runner, "hi")
    assert model.requests[0].model == "gemini-2.5-pro"


async def test_google_search_reaches_gemini_through_the_sdk(gemini_server: GeminiServer):
    gemini_server.reply_text("Searched.")
    agent = LlmAgent(name="a", model=Gemini(model="gemini-2.5-flash", api_key="k", base_url=gemini_server.url),
                     tools=[google_search])
    runner = await new_runner(agent)
    assert texts(await send(runner, "news?")) == ["Searched."]
    assert gemini_server.requests[0].body["tools"] == [{"googleSearch": {}}]


class _Provider(BaseExampleProvider):
    def __init__(self):
        self.queries: list[str] = []

    def get_examples(self, query: str) -> list[Example]:
        self.queries.append(query)
        return [Example(input=types.Content(role="user", parts=[types.Part(text="2+2?")]),
                        output=[ScriptedLlm.call("add", a=2, b=2),
                                types.Content(role="model", parts=[types.Part(text="4")])])]


async def test_example_tool_adds_few_shot_examples():
    examples = [Example(input=types.Content(role="user", parts=[types.Part(text="hello")]),
                        output=[types.Content(role="model", parts=[types.Part(text="hi there")])])]
    model = ScriptedLlm(["ok", "ok"])
    runner = await new_runner(LlmAgent(name="a", model=model, tools=[ExampleTool(examples)]))
    await send(runner, "greet me")
    text = system_text(model.requests[0])
    assert "EXAMPLE 1:" in text and "[user]\nhello" in text and "[model]\nhi there" in text
    assert not model.requests[0].config.tools  # never declared to the model

    provider = _Provider()
    model = ScriptedLlm(["4"])
    runner = await new_runner(LlmAgent(name="b", model=model, tools=[ExampleTool(provider)]))
    await send(runner, "what is 3+3")
    assert provider.queries == ["what is 3+3"]
    assert "add(a=2, b=2)" in system_text(model.requests[0])


class MathTools(BaseToolset):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)

        def add(a: int, b: int) -> int:
            """Adds."""
            return a + b

        def sub(a: int, b: int) -> int:
            """Subtracts."""
            return a - b

        self.tools = [FunctionTool(add), FunctionTool(sub)]

    async def get_tools(self, readonly_context=None):
        return [t for t in self.tools if self._is_tool_selected(t, readonly_context)]


async def test_toolset_filter_and_name_prefix():
    model = ScriptedLlm([ScriptedLlm.call("math_add", a=2, b=3), "5"])
    toolset = MathTools(tool_filter=["add"], tool_name_prefix="math")
    runner = await new_runner(LlmAgent(name="a", model=model, tools=[toolset]))
    events = await send(runner, "2+3")
    declared = [d.name for t in model.requests[0].config.tools for d in t.function_declarations]
    assert declared == ["math_add"]
    assert events[1].get_function_responses()[0].response == {"result": 5}
    assert [t.name for t in toolset.tools] == ["add", "sub"]  # the toolset's own tools keep their names
    by_predicate = MathTools(tool_filter=lambda tool, ctx: tool.name == "sub")
    assert [t.name for t in await by_predicate.get_tools_with_prefix()] == ["sub"]


async def test_transfer_to_agent_tool_with_a_reason():
    tool = TransferToAgentTool(agent_names=["billing", "support"], include_transfer_reason=True)
    declared = tool._get_declaration()
    params = declared.parameters_json_schema["properties"]
    assert params["agent_name"]["enum"] == ["billing", "support"] and "transfer_reason" in params
    assert "transfer_reason:" in declared.description
    without = TransferToAgentTool(agent_names=["billing"])._get_declaration()
    assert "transfer_reason" not in without.parameters_json_schema["properties"]
    assert "transfer_reason" not in without.description

    billing = LlmAgent(name="billing", model=ScriptedLlm(["Your invoice is paid."]))
    front = LlmAgent(name="front", model=ScriptedLlm([ScriptedLlm.call(
        "route", agent_name="billing", transfer_reason="an invoice question")]),
        tools=[_renamed(tool, "route")], sub_agents=[billing])
    runner = await new_runner(front)
    events = await send(runner, "my invoice?")
    assert events[1].actions.transfer_to_agent == "billing"
    assert events[1].actions.transfer_reason == "an invoice question"
    assert texts(events) == ["Your invoice is paid."]
    session = await stored(runner)
    assert session.events[2].actions.transfer_reason == "an invoice question"  # kept in the log


def _renamed(tool: TransferToAgentTool, name: str) -> TransferToAgentTool:
    """The tool under another name, so it does not clash with the agent's own transfer tool."""
    tool.name = name
    tool._get_declaration().name = name
    return tool
