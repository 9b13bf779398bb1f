"""ADK's Agent Config declares a Workflow's graph in `edges` (google-adk 2.13's
config_agent_utils): chains, route maps, fan-outs, explicit edges, nodes by dotted name, inline
and from other config files. Chronicle builds the same graph from the same file, and runs it."""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
import uuid

import pytest
from google.genai import types

from tests.adk_env import ADK_PYTHON, adk_python_or_skip
from domain.errors import InvalidArgumentError
from projections.workflow import fold_all
from runtime import App, Runner, session_service_from_url
from runtime.server.agent_config import agent_from_config
from runtime.workflow import Workflow

STEPS = '''
def classify(ctx, node_input: str):
    ctx.route = "big" if len(node_input) > 3 else "small"
    return node_input

def shout(node_input):
    return str(node_input).upper()

def whisper(node_input):
    return str(node_input).lower()

def tag(node_input):
    return f"[{node_input}]"

def finish(node_input):
    return f"done: {node_input}"

not_a_node = 42
'''

TRIAGE = '''
agent_class: Workflow
name: triage
edges:
  - [START, .steps.classify]
  - [classify, {big: .steps.shout, small: [.steps.whisper, {agent_class: FunctionNode, name: tagger, func_code: .steps.tag}]}]
  - from_node: shout
    to_node: .steps.finish
  - [whisper, finish]
'''


@pytest.fixture
def app_dir(tmp_path, monkeypatch):
    """A fresh package (its own name: imported modules are cached) holding steps.py."""
    folder = tmp_path / f"wf_{uuid.uuid4().hex[:8]}"
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    (folder / "steps.py").write_text(STEPS)
    monkeypatch.syspath_prepend(str(tmp_path))
    return folder


def write(folder, text: str, name: str = "root_agent.yaml") -> str:
    (folder / name).write_text(textwrap.dedent(text))
    return str(folder / name)


def edges_of(workflow) -> list[tuple[str, str, object]]:
    return [(e.from_node.name, e.to_node.name, e.route) for e in workflow.graph.edges]


TRIAGE_EDGES = [
    ("__START__", "classify", None), ("classify", "shout", "big"), ("classify", "whisper", "small"),
    ("classify", "tagger", "small"), ("shout", "finish", None), ("whisper", "finish", None),
]


async def run(store_url: str, workflow: Workflow, text: str) -> dict[str, object]:
    sessions = session_service_from_url(store_url)
    await sessions.create_session(app_name="triage", user_id="u", session_id="s-" + text)
    runner = Runner(app=App(name="triage", root_agent=workflow), session_service=sessions)
    message = types.Content(role="user", parts=[types.Part(text=text)])
    [e async for e in runner.run_async(user_id="u", session_id="s-" + text, new_message=message)]
    session = await sessions.get_session(app_name="triage", user_id="u", session_id="s-" + text)
    await runner.close()
    await sessions.close()
    return {run.path: run.output for run in fold_all(session.log_events()).nodes.values() if run.status == "completed"}


async def test_a_workflow_declared_in_yaml_builds_its_graph_and_runs(app_dir, store_url):
    workflow = agent_from_config(write(app_dir, TRIAGE))
    assert isinstance(workflow, Workflow) and workflow.name == "triage"
    assert edges_of(workflow) == TRIAGE_EDGES
    assert await run(store_url, workflow, "large") == {
        "triage@1/classify@1": "large", "triage@1/shout@1": "LARGE", "triage@1/finish@1": "done: LARGE"}
    assert await run(store_url, agent_from_config(str(app_dir / "root_agent.yaml")), "Ab") == {
        "triage@1/classify@1": "Ab", "triage@1/whisper@1": "ab", "triage@1/tagger@1": "[Ab]", "triage@1/finish@1": "done: ab"}


def test_agents_from_other_config_files_by_code_and_inline_are_nodes(app_dir):
    from runtime import LlmAgent

    (app_dir / "models.py").write_text(
        "from runtime import LlmAgent\nfrom runtime.models.scripted import ScriptedLlm\n"
        "model = ScriptedLlm(['noted'], cycle=True)\n"
        "by_code = LlmAgent(name='by_code', model=model)\n")
    write(app_dir, "name: writer\nmodel_code: .models.model\ninstruction: Write.\n", "writer.yaml")
    write(app_dir, "name: critic\nmodel_code: .models.model\n", "critic.yaml")
    workflow = agent_from_config(write(app_dir, """
        agent_class: Workflow
        name: pipeline
        edges:
          - [START, writer.yaml, {code: .models.by_code}, {name: inline_agent, model_code: .models.model}]
          - [START, {config_path: critic.yaml}]
          - [critic, inline_agent]
    """))
    assert edges_of(workflow) == [
        ("__START__", "writer", None), ("writer", "by_code", None), ("by_code", "inline_agent", None),
        ("__START__", "critic", None), ("critic", "inline_agent", None),
    ]
    agents = {name: node.agent for name, node in workflow.graph.nodes.items() if name != "__START__"}
    assert all(isinstance(agent, LlmAgent) for agent in agents.values())
    assert agents["writer"].instruction == "Write."


@pytest.mark.parametrize(("edges", "says"), [
    ("[[START, later]]", "Unknown node 'later'"),
    ("[[START, .steps.not_a_node]]", "not a function, a node or an agent"),
    ("[[START, os.system]]", "standard library"),
    ("[[START, .steps.nothing_here]]", "has no 'nothing_here'"),
    ("{START: x}", "must be a list"),
])
def test_bad_edges_are_refused_with_what_is_wrong(app_dir, edges, says):
    with pytest.raises(InvalidArgumentError, match=says):
        agent_from_config(write(app_dir, f"agent_class: Workflow\nname: bad\nedges: {edges}\n"))


def test_an_unknown_agent_class_is_refused(app_dir):
    with pytest.raises(InvalidArgumentError, match="Unknown agent_class 'Workflw'"):
        agent_from_config(write(app_dir, "agent_class: Workflw\nname: bad\n"))




def test_google_adk_builds_the_same_graph_from_the_same_file(app_dir):
    adk_python_or_skip()
    path = write(app_dir, TRIAGE)
    script = (
        "import json, sys\nfrom google.adk.agents.config_agent_utils import from_config\n"
        "w = from_config(sys.argv[1])\n"
        "print(json.dumps([[e.from_node.name, e.to_node.name, e.route] for e in w.graph.edges]))\n"
    )
    done = subprocess.run([ADK_PYTHON, "-c", script, path], cwd=str(app_dir.parent), capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(app_dir.parent)}, timeout=120)
    assert done.returncode == 0, done.stderr
    adk_edges = sorted(map(tuple, json.loads(done.stdout)), key=str)
    assert adk_edges == sorted(edges_of(agent_from_config(path)), key=str)
