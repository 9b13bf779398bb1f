"""`chronicle projections`, `analytics`, `replay` and `bench`, run for real; colour and progress on a terminal."""

from __future__ import annotations

import importlib.util
import json
import os
import pty
import subprocess
import sys

import pytest

from tests.cli_helpers import ROOT, cli, cli_json


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    path = tmp_path_factory.mktemp("more") / "chronicle.db"
    url = f"sqlite:///{path}"
    cli("demo", "--session", "s1", "--json", store=url)
    cli("demo", "--session", "s2", "--user", "bob", "--json", store=url)
    return url


def test_projections_status_rebuild_and_catch_up(store):
    cli("projections", "rebuild", store=store)
    status = {r["name"]: r for r in cli_json("projections", "status", store=store)}
    assert set(status) >= {"scoped_state", "artifacts", "analytics"}
    assert all(r["lag"] == 0 and r["position"] == r["log_end"] for r in status.values())
    cli("demo", "--session", "s3", "--json", store=store)  # the log grows; the read models are behind
    behind = cli("projections", "status", store=store).stdout
    assert "behind" in behind and "lag (events)" in behind
    assert "catch-up" in cli("projections", "status", store=store).stderr
    caught = cli_json("projections", "catch-up", store=store)
    assert caught["folded"]["analytics"] > 0 and all(r["lag"] == 0 for r in caught["status"])
    rebuilt = cli_json("projections", "rebuild", "analytics", store=store)
    assert rebuilt["rebuilt"]["analytics"] > 0
    unknown = cli("projections", "rebuild", "nope", store=store, expect=1)
    assert "scoped_state, artifacts, analytics" in unknown.stderr


def test_analytics_tables_and_json(store):
    text = cli("analytics", store=store).stdout
    for title in ("per app", "per agent", "per tool", "per user", "per day"):
        assert title in text
    assert "book_table" in text and "concierge" in text and "bob" in text
    data = cli_json("analytics", "--app", "demo", store=store)
    demo = data["demo"]
    assert demo["tools"]["book_table"]["calls"] >= 4 and demo["agents"]["concierge"]["llm_calls"] >= 10
    assert set(demo["users"]) == {"ann", "bob"} and "cursors" not in demo
    only = cli("analytics", "--by", "tools", store=store).stdout
    assert "per tool" in only and "per user" not in only
    assert cli_json("analytics", "--app", "other", store=store) == {}


def test_replay_plays_the_log_back(store):
    text = cli("replay", "s1", store=store).stdout
    lines = text.splitlines()
    assert "Book me a table for two" in lines[0] and "→ book_table" in lines[1]
    assert "artifact booking.txt v0" in text and "state " in text
    events = [json.loads(line) for line in cli("replay", "s1", "--json", store=store).stdout.splitlines()]
    assert len(events) == 10 and events[0]["author"] == "user"
    missing = cli("replay", "s1", "--agent", "tools.demo:nothing", store=store, expect=1)
    assert "Cannot load the agent" in missing.stderr


CHANGED_AGENT = """
from runtime.agents import LlmAgent
from runtime.models import ScriptedLlm
from tools.demo import INSTRUCTION, book_table


def root_agent():
    return LlmAgent(name="concierge", instruction=INSTRUCTION, tools=[book_table], model=ScriptedLlm([
        ScriptedLlm.call("book_table", people=2, time="20:00"), "Booked for 20:00.",
        "Three people it is.",
        "You have a table at 20:00.",
    ]))
"""


def test_replay_through_an_agent_reports_what_changed(store, tmp_path):
    same = cli_json("replay", "s1", "--agent", "demo", "--new-id", "s1-replay", store=store)
    assert same["identical"] and same["session_id"] == "s1-replay" and len(same["turns"]) == 3
    assert cli_json("history", "s1-replay", store=store)["forked_from"]["session_id"] == "s1"

    (tmp_path / "changed_agent.py").write_text(CHANGED_AGENT)
    done = cli("replay", "s1", "--agent", "changed_agent:root_agent", store=store,
               env={"PYTHONPATH": f"{tmp_path}{os.pathsep}{ROOT}"}, process=True)
    assert "3 turns, 3 differ" in done.stdout
    assert '+call book_table({"people": 2, "time": "20:00"})' in done.stdout
    assert "-Done: a table for two tonight at 19:30." in done.stdout
    assert "history" in done.stderr


@pytest.mark.slow
def test_bench_is_wired_to_every_benchmark():
    present = importlib.util.find_spec("tools.bench.rewind") is not None
    for what in ("sessions", "artifacts", "projections", *(["rewind"] if present else [])):
        done = cli("bench", what, "--stores", "memory", "--quick", "--runs", "1")
        assert "memory" in done.stdout and "|" in done.stdout
    runtime = cli_json("bench", "runtime", "--stores", "memory", "--quick", "--runs", "1")
    assert runtime[0]["kind"] == "memory" and runtime[0]["turns"] == 50 and runtime[0]["turns_per_s"] > 0
    if not present:
        assert "not in this build yet" in cli("bench", "rewind", "--quick", expect=1).stderr
    assert "unknown store kind" in cli("bench", "runtime", "--stores", "oracle", expect=1).stderr
    assert cli("bench", "nope", expect=2).returncode == 2


def test_bench_runner_is_for_adk_and_says_how_to_get_it():
    assert "--runner goes with `chronicle bench adk`" in cli("bench", "sessions", "--runner", expect=1).stderr
    if importlib.util.find_spec("google.adk") is None:
        assert "pip install -e '.[adk]'" in cli("bench", "adk", "--runner", "--quick", expect=1).stderr


def test_bench_markdown_prints_a_table_docs_can_paste():
    lines = cli("bench", "runtime", "--stores", "memory", "--quick", "--runs", "1", "--markdown").stdout.splitlines()
    title = next(i for i, line in enumerate(lines) if line.startswith("**"))
    header, rule, first = lines[title + 2], lines[title + 3], lines[title + 4]
    assert lines[title + 1] == ""
    assert header.startswith("| ") and rule.startswith("|---|") and rule.count("|") == header.count("|")
    assert first.startswith("| memory |") and first.count("|") == header.count("|")


def test_markdown_cells_keep_their_pipes_inside_the_cell():
    from tools.bench.common import Table

    table = Table("t", ["a", "b"], [["x|y", "2"]])
    assert table.markdown().splitlines()[-1] == "| x\\|y | 2 |"


@pytest.mark.slow
def test_bench_adk_without_google_adk_says_how_to_install_it(tmp_path):
    # A google.adk that cannot be imported, whether or not the real one is installed.
    (tmp_path / "google" / "adk").mkdir(parents=True)
    (tmp_path / "google" / "adk" / "__init__.py").write_text("raise ImportError('no google-adk here')\n")
    done = cli("bench", "adk", "--stores", "memory", "--quick", expect=1,
               env={"PYTHONPATH": f"{tmp_path}{os.pathsep}{ROOT}"}, process=True)
    assert "google-adk is not installed" in done.stderr
    assert "pip install -e '.[adk]'" in done.stderr and "Traceback" not in done.stderr


def run_on_terminal(*args: str, store: str) -> tuple[str, str]:
    """Runs the command with stdout and stderr on pseudo-terminals, as a person at a terminal would."""
    out_master, out_slave = pty.openpty()
    err_master, err_slave = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "CHRONICLE_STORE")}
    env["TERM"] = "xterm"
    proc = subprocess.Popen([sys.executable, "-m", "tools.cli", "--store", store, *args], cwd=ROOT, env=env,
                            stdout=out_slave, stderr=err_slave)
    os.close(out_slave)
    os.close(err_slave)
    chunks: dict[int, bytes] = {out_master: b"", err_master: b""}
    import select

    open_fds = [out_master, err_master]
    while open_fds:
        ready, _, _ = select.select(open_fds, [], [], 60)
        if not ready:
            break
        for fd in ready:
            try:
                data = os.read(fd, 65536)
            except OSError:
                data = b""
            if not data:
                open_fds.remove(fd)
            else:
                chunks[fd] += data
    assert proc.wait(60) == 0
    os.close(out_master)
    os.close(err_master)
    return chunks[out_master].decode(), chunks[err_master].decode()


@pytest.mark.slow
def test_a_terminal_gets_colour_tables_and_a_progress_bar(store):
    out, err = run_on_terminal("projections", "rebuild", "analytics", store=store)
    assert "rebuilding analytics" in err and "█" in err and "100%" in err
    out, _ = run_on_terminal("sessions", store=store)
    assert "\x1b[1m" in out and "─" in out  # bold header and a rule
    plain, _ = run_on_terminal("sessions", "--color", "never", store=store)
    assert "\x1b[" not in plain


from tests.gemini_server import gemini_server  # noqa: E402,F401 - the fixture


def test_demo_with_gemini_through_the_real_sdk(gemini_server, tmp_path):  # noqa: F811
    gemini_server.reply_function_call("book_table", {"people": 2, "time": "19:30"})
    gemini_server.reply_text("Booked for two.")
    gemini_server.reply_function_call("book_table", {"people": 3, "time": "19:30"})
    gemini_server.reply_text("Now three.")
    gemini_server.reply_text("Three at 19:30.")
    env = {"GOOGLE_API_KEY": "test-key", "GOOGLE_GEMINI_BASE_URL": gemini_server.url}
    done = cli("demo", "--model", "gemini-2.5-flash", "--session", "g1", "--json",
               store=f"sqlite:///{tmp_path}/g.db", env=env)
    run = json.loads(done.stdout)
    assert run["state"]["booking"] == {"people": 3, "time": "19:30"} and run["artifacts"] == ["booking.txt"]
    assert gemini_server.requests[0].model == "gemini-2.5-flash"
    assert "book_table" in json.dumps(gemini_server.requests[0].body["tools"])
    missing = cli("demo", "--model", "gemini-2.5-flash", store=f"sqlite:///{tmp_path}/none.db", expect=1)
    assert "GOOGLE_API_KEY" in missing.stderr and not (tmp_path / "none.db").exists()
