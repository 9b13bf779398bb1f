"""Agent folders written for `adk api_server` load unchanged under `chronicle serve`: Python files
that import google.adk (served by Chronicle's modules, google-adk not being installed here), Agent
Config YAML with tool args as google-adk 2.13 resolves them (AgentTool from agent.config_path, a
dotted func for LongRunningFunctionTool, McpToolset against the mcp package's own server), and an
app that cannot be built refused with its reason. Real server processes, the real google-genai
client against the local Gemini-protocol server."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import uuid
from pathlib import Path
from typing import Any, Iterator

import pytest

from tests.adk_env import adk_python_or_skip
from tests.gemini_server import GeminiServer
from tests.server_helpers import ANN, Served, message
from tools.serve_process import free_port

MCP_SERVER = str(Path(__file__).with_name("mcp_server.py"))
HEADER = "model: gemini-2.5-flash\n"


def _write(folder: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


@pytest.fixture(scope="module")
def mcp_http_url() -> Iterator[str]:
    port = free_port()
    process = subprocess.Popen([sys.executable, MCP_SERVER, "http", str(port)], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    try:
        import socket
        import time

        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                assert process.poll() is None and time.monotonic() < deadline, "the MCP server did not start"
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture(scope="module")
def agents_dir(tmp_path_factory, mcp_http_url) -> Path:
    root = tmp_path_factory.mktemp("adk_agents")
    _write(root, {
        # callbacks.py and tools.py import google.adk, as apps written for ADK do.
        "greeter/root_agent.yaml": f"""\
            name: greeter
            {HEADER}
            instruction: You greet people.
            before_agent_callbacks:
              - name: greeter.callbacks.count_visits
            tools:
              - name: greeter.tools.remember_name
            """,
        "greeter/callbacks.py": """\
            from google.adk.agents.callback_context import CallbackContext

            def count_visits(callback_context: CallbackContext):
                assert type(callback_context).__module__.startswith("runtime.")
                callback_context.state["visits"] = callback_context.state.get("visits", 0) + 1
            """,
        "greeter/tools.py": """\
            from google.adk.tools.tool_context import ToolContext

            def remember_name(name: str, tool_context: ToolContext) -> dict:
                \"\"\"Remembers the user's name.\"\"\"
                tool_context.state["name"] = name
                return {"remembered": name}
            """,
        # AgentTool from a config path, and a long-running tool from a dotted func.
        "desk/root_agent.yaml": f"""\
            name: desk
            {HEADER}
            instruction: You run the help desk.
            tools:
              - name: AgentTool
                args:
                  agent:
                    config_path: helper.yaml
              - name: LongRunningFunctionTool
                args:
                  func: desk.tools.ask_for_approval
            """,
        "desk/helper.yaml": f"""\
            name: helper
            {HEADER}
            description: Helps with anything.
            instruction: You help.
            """,
        "desk/tools.py": """\
            def ask_for_approval(amount: float) -> dict:
                \"\"\"Asks a manager to approve an amount.\"\"\"
                return {"status": "pending"}
            """,
        # McpToolset over stdio, from the config (ADK's opt-in variable is set for this server).
        "calc/root_agent.yaml": f"""\
            name: calc
            {HEADER}
            instruction: You add numbers with your tools.
            tools:
              - name: McpToolset
                args:
                  stdio_connection_params:
                    timeout: 30
                    server_params:
                      command: {sys.executable}
                      args: ["{MCP_SERVER}", "stdio"]
                  tool_filter: [add]
            """,
        # McpToolset over streamable HTTP, from the config.
        "calc_http/root_agent.yaml": f"""\
            name: calc_http
            {HEADER}
            instruction: You add numbers with your tools.
            tools:
              - name: McpToolset
                args:
                  streamable_http_connection_params:
                    url: {mcp_http_url}
                    timeout: 30
                  tool_filter: [add]
            """,
        # A transfer tree, for replay.
        "tutors/root_agent.yaml": f"""\
            name: coordinator
            {HEADER}
            description: Sends questions to the right tutor.
            instruction: You route questions.
            sub_agents:
              - config_path: math.yaml
            """,
        "tutors/math.yaml": f"""\
            name: math_tutor
            {HEADER}
            description: Answers maths questions.
            instruction: You teach maths.
            """,
        # Not buildable: an AgentTool whose agent file is missing.
        "broken/root_agent.yaml": f"""\
            name: broken
            {HEADER}
            tools:
              - name: AgentTool
                args:
                  agent:
                    config_path: nowhere.yaml
            """,
    })
    return root


@pytest.fixture(scope="module")
def gemini() -> Iterator[GeminiServer]:
    with GeminiServer() as server:
        yield server


@pytest.fixture(scope="module", params=["sqlite", "memory"])
def served(request, agents_dir, gemini, tmp_path_factory) -> Iterator[Served]:
    store = "memory://" if request.param == "memory" else f"sqlite:///{tmp_path_factory.mktemp('folders')}/c.db"
    plugins = ("--extra_plugins", "google.adk.cli.plugins.replay_plugin.ReplayPlugin",
               "google.adk.cli.plugins.recordings_plugin.RecordingsPlugin")
    server = Served(store, agents_dir=agents_dir, args=plugins, env={
        "GOOGLE_GEMINI_BASE_URL": gemini.url, "GOOGLE_API_KEY": "test-key", "ADK_ALLOW_CONFIG_STDIO_MCP_SERVERS": "1",
    })
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def ann(served) -> Iterator[Any]:
    with served.client(ANN) as client:
        yield client


def _run(client: Any, app: str, text: str) -> tuple[Any, dict[str, Any]]:
    session = client.post(f"/apps/{app}/users/ann/sessions", json={"sessionId": f"s-{uuid.uuid4().hex[:8]}"})
    assert session.status_code == 200, session.text
    sid = session.json()["id"]
    response = client.post("/run", json={"appName": app, "userId": "ann", "sessionId": sid, "newMessage": message(text)})
    return response, client.get(f"/apps/{app}/users/ann/sessions/{sid}").json()


def test_python_files_that_import_google_adk_load_and_run(ann, gemini):
    gemini.reply_function_call("remember_name", {"name": "Ada"})
    gemini.reply_text("Hello Ada.")
    response, session = _run(ann, "greeter", "I am Ada")
    assert response.status_code == 200, response.text
    assert session["state"]["visits"] == 1 and session["state"]["name"] == "Ada"
    assert session["events"][-1]["content"]["parts"][0]["text"] == "Hello Ada."


def test_agent_tool_and_long_running_tool_come_from_their_config_args(ann, gemini):
    gemini.reply_text("noted")  # a request to read the declarations the config produced
    response, _ = _run(ann, "desk", "hi")
    assert response.status_code == 200, response.text
    declared = gemini.requests[-1].body["tools"][0]["functionDeclarations"]
    by_name = {d["name"]: d for d in declared}
    assert by_name["helper"]["description"] == "Helps with anything."  # the AgentTool, from helper.yaml
    assert "long-running operation" in by_name["ask_for_approval"]["description"]


@pytest.mark.parametrize("app", ["calc", "calc_http"], ids=["stdio", "streamable-http"])
def test_mcp_toolset_from_the_config_calls_a_real_mcp_server(ann, gemini, app):
    gemini.reply_function_call("add", {"a": 5, "b": 7})
    gemini.reply_text("12")
    response, session = _run(ann, app, "Add 5 and 7")
    assert response.status_code == 200, response.text
    results = [p["functionResponse"] for e in session["events"] for p in (e.get("content") or {}).get("parts", [])
               if "functionResponse" in p]
    assert results and "12" in str(results[0]["response"])


def test_an_app_that_cannot_be_built_is_a_4xx_with_the_reason(ann):
    for _ in range(2):  # the same answer each time, not a 500
        response = ann.post("/apps/broken/users/ann/sessions", json={})
        if response.status_code == 200:
            response, _ = _run(ann, "broken", "hi")
        assert 400 <= response.status_code < 500, response.text
        assert "nowhere.yaml" in response.text


def test_a_stdio_mcp_server_in_a_config_needs_adks_opt_in(tmp_path):
    _write(tmp_path, {"calc/root_agent.yaml": f"""\
        name: calc
        {HEADER}
        tools:
          - name: McpToolset
            args:
              stdio_server_params:
                command: {sys.executable}
                args: ["{MCP_SERVER}", "stdio"]
        """})
    script = (
        "from runtime.server.agent_config import agent_from_config\n"
        f"agent_from_config({str(tmp_path / 'calc' / 'root_agent.yaml')!r})\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env={"PYTHONPATH": str(Path(__file__).parents[1]), "PATH": "/usr/bin:/bin"})
    assert done.returncode != 0 and "ADK_ALLOW_CONFIG_STDIO_MCP_SERVERS=1" in done.stderr


def test_a_real_google_adk_is_never_shadowed():
    adk_python = adk_python_or_skip()
    script = (
        "from runtime.server import adk_imports\n"
        "installed = adk_imports.install_if_missing()\n"
        "import google.adk.agents.callback_context as m\n"
        "print(installed, m.CallbackContext.__module__)\n"
    )
    done = subprocess.run([adk_python, "-c", script], capture_output=True, text=True,
                          env={"PYTHONPATH": str(Path(__file__).parents[1]), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    installed, module = done.stdout.split()
    assert installed == "False" and module.startswith("google.adk.")  # ADK's own class, not Chronicle's


def _conformance_turn(client: Any, app: str, sid: str, text: str, key: str, case_dir: Path) -> list[dict]:
    state = {key: {"dir": str(case_dir), "user_message_index": 0, "streaming_mode": "none"}}
    response = client.post("/run", json={"appName": app, "userId": "ann", "sessionId": sid, "newMessage": message(text),
                                         "stateDelta": state})
    assert response.status_code == 200, response.text
    return response.json()


def test_transfer_to_agent_takes_effect_under_replay(ann, gemini, tmp_path):
    gemini.reply_function_call("transfer_to_agent", {"agent_name": "math_tutor"})
    gemini.reply_text("2 + 2 = 4.")
    recorded_session = ann.post("/apps/tutors/users/ann/sessions", json={}).json()["id"]
    recorded = _conformance_turn(ann, "tutors", recorded_session, "What is 2 + 2?", "_adk_recordings_config", tmp_path)
    asked = len(gemini.requests)
    replay_session = ann.post("/apps/tutors/users/ann/sessions", json={}).json()["id"]
    replayed = _conformance_turn(ann, "tutors", replay_session, "What is 2 + 2?", "_adk_replay_config", tmp_path)
    assert len(gemini.requests) == asked  # answered from the recording
    assert [e["author"] for e in replayed] == [e["author"] for e in recorded] == ["coordinator", "coordinator", "math_tutor"]
    assert replayed[1]["actions"]["transferToAgent"] == "math_tutor"
    assert replayed[2]["content"]["parts"][0]["text"] == "2 + 2 = 4."


def test_built_in_tool_names_of_google_adk_in_a_config(tmp_path):
    from domain.errors import InvalidArgumentError
    from runtime.server.agent_config import agent_from_config

    _write(tmp_path, {"a.yaml": f"""\
        name: a
        {HEADER}
        tools:
          - name: google_maps_grounding
          - name: enterprise_web_search
          - name: url_context
          - name: exit_loop
          - name: request_input
        """, "cloud.yaml": f"""\
        name: cloud
        {HEADER}
        tools:
          - name: VertexAiSearchTool
            args: {{data_store_id: x}}
        """})
    agent = agent_from_config(str(tmp_path / "a.yaml"))
    assert [getattr(t, "name", getattr(t, "__name__", None)) for t in agent.tools] == [
        "google_maps", "enterprise_web_search", "url_context", "exit_loop", "adk_request_input"]
    with pytest.raises(InvalidArgumentError, match="Vertex AI Search"):
        agent_from_config(str(tmp_path / "cloud.yaml"))
