"""The names a ported google-adk 2.13 app imports beyond the core (issue 28): each at ADK's path
and doing what ADK does with it, or refusing with a typed error that says why."""

from __future__ import annotations

import logging
import os

import pytest
from google.genai import types
from pydantic import ValidationError

from domain.errors import InvalidArgumentError
from runtime import LlmAgent, Runner, ScriptedLlm
from runtime.agents import RunConfig
from runtime.agents.context_cache_config import ContextCacheConfig
from runtime.apps import App
from runtime.artifacts import artifact_service_from_url
from runtime.artifacts.base_artifact_service import ensure_part
from runtime.contexts import ServiceNotConfiguredError
from runtime.events import Event, EventActions
from runtime.events.ui_widget import UiWidget
from runtime.memory.service import memory_service_from_url
from runtime.plugins import BasePlugin, PluginManager
from runtime.sessions import InMemorySessionService, session_service_from_url
from runtime.tools import AgentTool, ToolContext, VertexAiSearchTool, request_input
from runtime.tools.vertex_ai_search_tool import VertexAiSearchUnavailableError
from tests.rt_helpers import SESSION, USER, content_texts, new_runner, send, stored


def test_callback_aliases_are_one_object_at_both_paths():
    from runtime.agents import base_agent, callback_types, llm_agent

    for name in ("BeforeAgentCallback", "AfterAgentCallback"):
        assert getattr(base_agent, name) is getattr(callback_types, name)
    for name in ("BeforeModelCallback", "AfterModelCallback", "OnModelErrorCallback", "BeforeToolCallback",
                 "AfterToolCallback", "OnToolErrorCallback"):
        assert getattr(llm_agent, name) is getattr(callback_types, name)


# -- RunConfig -----------------------------------------------------------------------------------

async def test_model_input_context_goes_before_the_user_message_and_is_never_stored(store_url):
    sessions = session_service_from_url(store_url)
    await sessions.create_session(app_name="app", user_id=USER, session_id=SESSION)
    model = ScriptedLlm(["first", "second"])
    runner = Runner(agent=LlmAgent(name="a", model=model), app_name="app", session_service=sessions)
    note = types.Content(role="user", parts=[types.Part(text="today is Friday")])
    await send(runner, "hello")
    await send(runner, "and now?", run_config=RunConfig(model_input_context=[note]))
    assert content_texts(model.requests[1].contents) == [
        "user:hello", "model:first", "user:today is Friday", "user:and now?"]
    session = await stored(runner)
    assert "today is Friday" not in [e.text() for e in session.events]


def test_run_config_takes_adks_live_fields_and_refuses_other_agents_thoughts():
    config = RunConfig(enable_affective_dialog=True, avatar_config=types.AvatarConfig(),
                       translation_config=types.TranslationConfig())
    assert config.enable_affective_dialog is True
    with pytest.raises(ValidationError, match="never shows one agent's thoughts"):
        RunConfig(include_thoughts_from_other_agents=True)


# -- Context -------------------------------------------------------------------------------------

async def test_custom_metadata_starts_from_run_config_and_is_shared_in_the_invocation():
    seen = []

    def first(tool_context: ToolContext) -> str:
        """Marks the metadata."""
        tool_context.custom_metadata["step"] = "one"
        return "ok"

    def second(tool_context: ToolContext) -> str:
        """Reads the metadata."""
        seen.append(dict(tool_context.custom_metadata))
        return "ok"

    model = ScriptedLlm([ScriptedLlm.call("first"), ScriptedLlm.call("second"), "done"])
    runner = await new_runner(LlmAgent(name="a", model=model, tools=[first, second]))
    await send(runner, "go", run_config=RunConfig(custom_metadata={"tenant": "acme"}))
    assert seen == [{"tenant": "acme", "step": "one"}]


async def test_a_tool_adds_events_and_memories_through_its_context(store_url):
    memory = memory_service_from_url(store_url)
    remembered = Event(author="user", content=types.Content(role="user", parts=[types.Part(text="I like kayaks")]))

    async def remember(tool_context: ToolContext) -> str:
        """Remembers."""
        await tool_context.add_events_to_memory(events=[remembered])
        with pytest.raises(NotImplementedError, match="does not take memories directly"):
            await tool_context.add_memory(memories=[])
        return "ok"

    model = ScriptedLlm([ScriptedLlm.call("remember"), "done"])
    sessions = session_service_from_url(store_url)
    await sessions.create_session(app_name="app", user_id=USER, session_id=SESSION)
    runner = Runner(agent=LlmAgent(name="a", model=model, tools=[remember]), app_name="app",
                    session_service=sessions, memory_service=memory)
    await send(runner, "go")
    found = await memory.search_memory(app_name="app", user_id=USER, query="kayaks")
    assert [m.content.parts[0].text for m in found.memories] == ["I like kayaks"]
    await memory.close()


async def test_without_a_memory_service_adding_memory_is_a_typed_error():
    errors = []

    async def remember(tool_context: ToolContext) -> str:
        """Remembers."""
        try:
            await tool_context.add_events_to_memory(events=[])
        except ServiceNotConfiguredError as e:
            errors.append(e)
        return "ok"

    sessions = InMemorySessionService()
    await sessions.create_session(app_name="app", user_id=USER, session_id=SESSION)
    runner = Runner(agent=LlmAgent(name="a", model=ScriptedLlm([ScriptedLlm.call("remember"), "done"]),
                                   tools=[remember]), app_name="app", session_service=sessions)
    await send(runner, "go")
    assert len(errors) == 1 and isinstance(errors[0], ValueError)


# -- events, artifacts, plugins ------------------------------------------------------------------

async def test_ui_widgets_and_message_round_trip_through_the_store(store_url):
    sessions = session_service_from_url(store_url)
    session = await sessions.create_session(app_name="app", user_id=USER, session_id=SESSION)
    widget = UiWidget(id="w1", provider="mcp", payload={"resource_uri": "ui://chart"})
    event = Event(author="a", message="a chart", actions=EventActions(render_ui_widgets=[widget]))
    assert event.content.parts[0].text == "a chart"
    await sessions.append_event(session, event)
    read = (await sessions.get_session(app_name="app", user_id=USER, session_id=SESSION)).events[0]
    assert read.actions.render_ui_widgets == [widget] and read.message.parts[0].text == "a chart"
    with pytest.raises(ValidationError):
        UiWidget(id="w2", provider="mcp", colour="red")


async def test_ensure_part_takes_json_parts_and_refuses_the_rest(store_url):
    part = ensure_part({"inlineData": {"mimeType": "text/plain", "data": "aGk="}})
    assert part.inline_data.data == b"hi"
    with pytest.raises(InvalidArgumentError, match="not a valid Part"):
        ensure_part({"inlineData": 3})
    with pytest.raises(InvalidArgumentError, match="must be a google.genai types.Part"):
        ensure_part("hi")
    artifacts = artifact_service_from_url(store_url)
    scope = dict(app_name="app", user_id=USER, session_id=SESSION)
    assert await artifacts.save_artifact(**scope, filename="f.txt", artifact={"text": "hello"}) == 0
    assert (await artifacts.load_artifact(**scope, filename="f.txt")).text == "hello"


async def test_a_plugin_manager_that_skips_closing_leaves_shared_plugins_open():
    closed = []

    class Owned(BasePlugin):
        async def close(self) -> None:
            closed.append(self.name)

    manager = PluginManager(plugins=[Owned("shared")])
    manager.set_skip_closing_plugins(True)
    await manager.close()
    assert closed == []
    manager.set_skip_closing_plugins(False)
    await manager.close()
    assert closed == ["shared"]


# -- agents, apps, tools -------------------------------------------------------------------------

def test_context_cache_config_is_checked_and_reaches_the_runner():
    config = ContextCacheConfig(cache_intervals=5, ttl_seconds=600)
    app = App(name="app", root_agent=LlmAgent(name="a", model=ScriptedLlm([])), context_cache_config=config)
    runner = Runner(app=app, session_service=InMemorySessionService())
    assert runner.context_cache_config is config
    assert Runner(agent=LlmAgent(name="b", model=ScriptedLlm([])), app_name="app",
                  session_service=InMemorySessionService()).context_cache_config is None
    assert str(config) == ("ContextCacheConfig(cache_intervals=5, ttl=600s, min_tokens=0, "
                           "create_http_options=None)")
    with pytest.raises(ValidationError):
        ContextCacheConfig(cache_intervals=0)


def test_canonical_live_model_comes_from_the_agent_an_ancestor_or_the_live_default():
    own = ScriptedLlm([])
    child = LlmAgent(name="child")
    parent = LlmAgent(name="parent", model=own, sub_agents=[child])
    assert parent.canonical_live_model is own and child.canonical_live_model is own
    alone = LlmAgent(name="alone")
    assert alone.canonical_live_model.model == LlmAgent._default_live_model


def test_rerun_on_resume_reaches_the_agents_workflow_node():
    from runtime.workflow.graph import as_node

    assert LlmAgent(name="a").rerun_on_resume is False
    assert as_node(LlmAgent(name="b", rerun_on_resume=True)).rerun_on_resume is True


async def test_request_input_is_adks_long_running_tool():
    assert request_input.name == "adk_request_input" and request_input.is_long_running
    model = ScriptedLlm([ScriptedLlm.call("adk_request_input", message="Which city?")])
    runner = await new_runner(LlmAgent(name="a", model=model, tools=[request_input]))
    events = await send(runner, "book a trip")
    assert events[0].long_running_tool_ids == {events[0].get_function_calls()[0].id}


async def test_vertex_ai_search_asks_gemini_to_search_and_refuses_the_cloud_api():
    from runtime.models import LlmRequest

    with pytest.raises(InvalidArgumentError, match="Either data_store_id or search_engine_id"):
        VertexAiSearchTool()
    store = "projects/p/locations/global/collections/c/dataStores/d"
    tool = VertexAiSearchTool(data_store_id=store, max_results=3)
    request = LlmRequest(model="gemini-2.5-flash")
    await tool.process_llm_request(tool_context=None, llm_request=request)
    assert request.config.tools[0].retrieval.vertex_ai_search == types.VertexAISearch(datastore=store, max_results=3)
    with pytest.raises(InvalidArgumentError, match="is not supported for model"):
        await tool.process_llm_request(tool_context=None, llm_request=LlmRequest(model="openai/gpt-4o"))
    bypass = VertexAiSearchTool(search_engine_id="engines/e", bypass_multi_tools_limit=True)
    with pytest.raises(VertexAiSearchUnavailableError, match="Discovery Engine"):
        await bypass.process_llm_request(tool_context=None, llm_request=LlmRequest(model="gemini-2.5-flash"))


def test_log_to_tmp_folder_sends_logging_to_a_file(tmp_path, monkeypatch):
    from runtime.cli.utils import logs

    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile
    monkeypatch.setattr(tempfile, "tempdir", None)
    root = logging.getLogger()
    saved = (root.handlers[:], root.level)
    try:
        path = logs.log_to_tmp_folder(logging.DEBUG, log_file_prefix="t", log_file_timestamp="x")
        logging.getLogger("runtime.test").debug("written")
        root.handlers[0].flush()
        assert path == str(tmp_path / "agents_log" / "t.x.log")
        assert "written" in open(path).read()
        assert os.readlink(tmp_path / "agents_log" / "t.latest.log") == path
    finally:
        for handler in root.handlers:
            handler.close()
        root.handlers, _ = saved
        root.setLevel(saved[1])
        logs._set_chronicle_level(logging.NOTSET)


async def test_a_live_request_queue_keeps_the_order_and_closes():
    from runtime.agents import LiveRequest, LiveRequestQueue

    queue = LiveRequestQueue()
    queue.send_content(types.Content(role="user", parts=[types.Part(text="hi")]))
    queue.send_realtime(types.Blob(mime_type="audio/pcm", data=b"\x00\x01"))
    queue.close()
    got = [await queue.get() for _ in range(3)]
    assert got[0].content.parts[0].text == "hi" and got[1].blob.data == b"\x00\x01" and got[2].close
    assert queue.closed
    assert LiveRequest.model_validate_json(got[1].model_dump_json()) == got[1]


def test_a_live_connection_must_implement_every_method():
    from runtime.models.base_llm_connection import BaseLlmConnection

    with pytest.raises(TypeError):
        BaseLlmConnection()


async def test_aclosing_closes_a_generator_left_early():
    from runtime.utils.context_utils import Aclosing

    closed = []

    async def numbers():
        try:
            yield 1
            yield 2
        finally:
            closed.append(True)

    async with Aclosing(numbers()) as agen:
        async for _ in agen:
            break
    assert closed == [True]


@pytest.mark.parametrize("path, name, kwargs", [
    ("runtime.artifacts.gcs_artifact_service", "GcsArtifactService", {"bucket_name": "b"}),
    ("runtime.sessions.vertex_ai_session_service", "VertexAiSessionService", {"project": "p", "location": "l"}),
])
def test_cloud_backed_services_import_and_refuse_when_built(path, name, kwargs):
    import importlib

    from runtime.cloud_services import CloudServiceUnavailableError

    cls = getattr(importlib.import_module(path), name)
    with pytest.raises(CloudServiceUnavailableError, match="which Chronicle does not call"):
        cls(**kwargs)


def test_artifact_uris_parse_and_build_as_adks():
    from runtime.artifacts.artifact_util import (
        ParsedArtifactUri, get_artifact_uri, is_artifact_ref, parse_artifact_uri, validate_path_segment)

    uri = get_artifact_uri("app", "group/ann", "docs/report.txt", 2, session_id="s1")
    assert uri == "artifact://apps/app/users/group/ann/sessions/s1/artifacts/docs/report.txt/versions/2"
    assert parse_artifact_uri(uri) == ParsedArtifactUri("app", "group/ann", "s1", "docs/report.txt", 2)
    assert parse_artifact_uri(get_artifact_uri("app", "ann", "f", 0)) == ParsedArtifactUri("app", "ann", None, "f", 0)
    assert parse_artifact_uri("file:///tmp/x") is None and parse_artifact_uri("artifact://apps/a") is None
    assert is_artifact_ref(types.Part(file_data=types.FileData(file_uri=uri)))
    assert not is_artifact_ref(types.Part(text="hi"))
    validate_path_segment("group/ann", "user_id")
    for bad, why in [("../x", "traversal"), ("/etc", "absolute"), ("", "empty"), ("a\x00b", "null bytes"),
                     ("C:x", "drive"), ("x/sessions/y", "reserved")]:
        with pytest.raises(InvalidArgumentError, match=why):
            validate_path_segment(bad, "user_id")


async def test_a_reference_part_is_saved_as_a_link_to_the_version(store_url):
    from runtime.artifacts.artifact_util import get_artifact_uri

    artifacts = artifact_service_from_url(store_url)
    scope = dict(app_name="app", user_id=USER, session_id=SESSION)
    await artifacts.save_artifact(**scope, filename="a.txt", artifact=types.Part(text="original"))
    link = types.Part(file_data=types.FileData(file_uri=get_artifact_uri("app", USER, "a.txt", 0, SESSION)))
    await artifacts.save_artifact(**scope, filename="b.txt", artifact=link)
    assert (await artifacts.load_artifact(**scope, filename="b.txt")).text == "original"


def test_adk_feature_switches_are_recorded_and_say_they_change_nothing(caplog):
    from runtime.features import FeatureName, _overrides, is_feature_enabled, override_feature_enabled

    try:
        with caplog.at_level(logging.WARNING, logger="runtime.features"):
            override_feature_enabled(FeatureName.JSON_SCHEMA_FOR_FUNC_DECL, True)
        assert is_feature_enabled("JSON_SCHEMA_FOR_FUNC_DECL") is True
        assert "changes nothing" in caplog.text
        with pytest.raises(ValueError):
            override_feature_enabled("NO_SUCH_FEATURE", True)
    finally:
        _overrides.clear()


async def test_sqlite_urls_and_async_with_as_adk_takes_them(tmp_path, monkeypatch):
    from runtime.sessions import DatabaseSessionService
    from runtime.sessions.sqlite_session_service import SqliteSessionService

    monkeypatch.chdir(tmp_path)
    for url, file in [("sqlite+aiosqlite:///./a.db", "a.db"), ("sqlite:///./b.db", "b.db"),
                      ("sqlite+aiosqlite:///" + str(tmp_path / "c.db"), "c.db")]:
        service = SqliteSessionService(url)
        await service.create_session(app_name="app", user_id="u")
        await service.close()
        assert (tmp_path / file).exists()
    async with DatabaseSessionService(f"sqlite+aiosqlite:///{tmp_path}/d.db") as service:
        session = await service.create_session(app_name="app", user_id="u")
    reopened = DatabaseSessionService(f"sqlite+aiosqlite:///{tmp_path}/d.db")
    assert (await reopened.get_session(app_name="app", user_id="u", session_id=session.id)).id == session.id
    await reopened.close()


async def test_enterprise_web_search_is_declared_to_gemini_and_refused_elsewhere():
    from runtime.models import LlmRequest
    from runtime.tools import enterprise_web_search

    request = LlmRequest(model="gemini-2.5-flash")
    await enterprise_web_search.process_llm_request(tool_context=None, llm_request=request)
    assert request.config.tools[0].enterprise_web_search == types.EnterpriseWebSearch()
    with pytest.raises(InvalidArgumentError, match="Enterprise Web Search tool is not supported for model gpt-4o"):
        await enterprise_web_search.process_llm_request(tool_context=None, llm_request=LlmRequest(model="gpt-4o"))
