"""`chronicle workflow SESSION`: the node runs of a workflow invocation as a table, JSON, Mermaid
and DOT, read from a real store by the real command."""

from __future__ import annotations

from google.genai import types

from domain.events import Event
from runtime import App, Runner, session_service_from_url
from runtime.workflow import START, JoinNode, RetryConfig, Workflow, node
from tests.cli_helpers import cli, cli_json

APP, USER, SESSION = "wf_cli", "u1", "wf-session"


async def record_run(url: str) -> str:
    tries = []

    def classify(node_input: str):
        return Event(output=node_input, route="long" if len(node_input) > 3 else "short")

    @node(retry_config=RetryConfig(max_attempts=2, initial_delay=0, jitter=0))
    def long(node_input: str):
        tries.append(1)
        if len(tries) == 1:
            raise ConnectionError("flaky")
        return "L"

    def short(node_input: str):
        return "S"

    def extra(node_input: str):
        return "E"

    wf = Workflow(
        name="wf",
        edges=[(START, classify, {"long": (long, extra), "short": short}), ((long, extra), JoinNode(name="join"))],
    )
    sessions = session_service_from_url(url)
    await sessions.create_session(app_name=APP, user_id=USER, session_id=SESSION)
    runner = Runner(app=App(name=APP, root_agent=wf), session_service=sessions)
    message = types.Content(role="user", parts=[types.Part(text="lengthy")])
    events = [e async for e in runner.run_async(user_id=USER, session_id=SESSION, new_message=message)]
    await sessions.close()
    return events[0].invocation_id


async def test_the_command_shows_each_node_run_and_draws_the_path_taken(shared_store_url):
    invocation = await record_run(shared_store_url)

    table = cli("workflow", SESSION, store=shared_store_url).stdout
    assert f"workflow run of invocation {invocation}" in table
    lines = {line.split()[0]: line for line in table.splitlines() if line.startswith("wf@1/")}
    assert list(lines) == ["wf@1/classify@1", "wf@1/long@1", "wf@1/extra@1", "wf@1/join@1"]
    assert all(" completed " in line for line in lines.values())
    assert '"lengthy"' in lines["wf@1/classify@1"] and " 2 " in lines["wf@1/long@1"]  # two attempts

    data = cli_json("workflow", SESSION, store=shared_store_url)
    assert data["invocation_id"] == invocation
    join = next(n for n in data["nodes"] if n["path"] == "wf@1/join@1")
    assert join["output"] == {"long": "L", "extra": "E"}
    assert sorted(join["sources"]) == ["wf@1/extra@1", "wf@1/long@1"]

    mermaid = cli("workflow", SESSION, "--format", "mermaid", store=shared_store_url).stdout
    assert mermaid.startswith("flowchart TD")
    assert "start --> n0" in mermaid and "n0 -->|long| n1" in mermaid and "n0 -->|long| n2" in mermaid
    assert "n1 --> n3" in mermaid and "n2 --> n3" in mermaid
    assert "short" not in mermaid.replace("|long|", "")  # the branch not taken is not drawn

    dot = cli("workflow", SESSION, "--format", "dot", store=shared_store_url).stdout
    assert dot.startswith("digraph workflow {") and dot.rstrip().endswith("}")
    assert '"wf@1/classify@1" -> "wf@1/long@1" [label="long"];' in dot
    assert '"wf@1/long@1" [shape=box, style=filled, fillcolor="#c8f0c8", label="long@1\\ncompleted x2"];' in dot


async def test_the_command_explains_a_session_without_a_workflow_or_a_wrong_invocation(shared_store_url):
    await record_run(shared_store_url)
    wrong = cli("workflow", SESSION, "--invocation", "nope", store=shared_store_url, expect=1)
    assert "ran no workflow" in wrong.stderr

    sessions = session_service_from_url(shared_store_url)
    await sessions.create_session(app_name=APP, user_id=USER, session_id="plain")
    await sessions.close()
    plain = cli("workflow", "plain", store=shared_store_url, expect=1)
    assert "no workflow runs" in plain.stderr


async def test_history_shows_each_node_run_and_analytics_count_runs_retries_and_time_per_node(shared_store_url):
    await record_run(shared_store_url)

    history = cli("history", SESSION, "--full", store=shared_store_url).stdout
    assert '◆ wf@1/classify@1 completed in ' in history and 'in "lengthy" → out "lengthy" route long' in history
    assert '◆ wf@1/long@1 retried in "lengthy" ConnectionError: flaky' in history  # its start rides on it
    assert '◆ wf@1/join@1 completed in ' in history and 'in {"long": "L", "extra": "E"}' in history
    steps = [s for inv in cli_json("history", SESSION, store=shared_store_url)["timeline"]["invocations"]
             for s in inv["steps"] if s["node"]]
    statuses = [(s["node"]["path"], s["node"]["status"]) for s in steps]
    assert ("wf@1/long@1", "retried") in statuses and statuses[-1] == ("wf@1/join@1", "completed")
    assert all(s["node"]["seconds"] >= 0 for s in steps if s["node"]["status"] == "completed")

    table = cli("analytics", "--by", "nodes", store=shared_store_url).stdout
    rows = {line.split()[1]: line.split()[2:6] for line in table.splitlines() if line.startswith(APP)}
    assert rows == {"wf/classify": ["1", "1", "0", "0"], "wf/long": ["1", "1", "0", "1"],
                    "wf/extra": ["1", "1", "0", "0"], "wf/join": ["1", "1", "0", "0"]}
