"""google-adk's own conformance client against `chronicle serve`, on a case of our own.

A conversation of our own agents (a transfer tree in Agent Config YAML) is recorded by Chronicle's
recorder and saved as a conformance case (spec, recordings, session), then replayed by google-adk
2.13's runner (`tools/conformance/run_suite.py`, in google-adk's environment) with its request
verification and its event and session comparison: it passes, in none and sse modes; one word
changed in a recorded request makes it fail. The public suite's files are never used here."""

from __future__ import annotations

import shutil
import subprocess
import textwrap
from pathlib import Path
from typing import Any, Iterator

import pytest
import yaml

from tests.gemini_server import GeminiServer
from tests.server_helpers import Served, message

ROOT = Path(__file__).resolve().parents[1]




@pytest.fixture(scope="module")
def suite(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("suite")
    agents = root / "agents" / "tutors"
    agents.mkdir(parents=True)
    (agents / "root_agent.yaml").write_text(textwrap.dedent("""\
        name: coordinator
        model: gemini-2.5-flash
        description: Sends questions to the right tutor.
        instruction: You route questions to the tutor who knows the subject.
        sub_agents:
          - config_path: math.yaml
        """))
    (agents / "math.yaml").write_text(textwrap.dedent("""\
        name: math_tutor
        model: gemini-2.5-flash
        description: Answers maths questions.
        instruction: You teach maths, step by step.
        """))
    case = root / "tests" / "core" / "transfer_001"
    case.mkdir(parents=True)
    (case / "spec.yaml").write_text(textwrap.dedent("""\
        description: A question handed to the tutor who knows the subject.
        agent: tutors
        user_messages:
          - text: What is 2 + 2?
          - text: And 3 + 3?
        """))
    return root


@pytest.fixture(scope="module")
def served(suite) -> Iterator[Served]:
    with GeminiServer() as gemini:
        plugins = ("--extra_plugins", "google.adk.cli.plugins.replay_plugin.ReplayPlugin",
                   "google.adk.cli.plugins.recordings_plugin.RecordingsPlugin")
        server = Served(f"sqlite:///{suite}/chronicle.db", agents_dir=suite / "agents", args=plugins, tokens=None,
                        env={"GOOGLE_GEMINI_BASE_URL": gemini.url, "GOOGLE_API_KEY": "test-key"})
        try:
            _record(server, gemini, suite / "tests" / "core" / "transfer_001")
            yield server
        finally:
            server.stop()


def _record(server: Served, gemini: GeminiServer, case: Path) -> None:
    """As `adk conformance record` does: each user message run with the recordings key, then the session saved."""
    gemini.reply_function_call("transfer_to_agent", {"agent_name": "math_tutor"})
    gemini.reply_text("2 + 2 = 4.")
    gemini.reply_text("3 + 3 = 6.")
    spec = yaml.safe_load((case / "spec.yaml").read_text())
    with server.client(None) as client:
        user = "adk_conformance_test_user"
        session = client.post(f"/apps/tutors/users/{user}/sessions", json={}).json()
        for index, turn in enumerate(spec["user_messages"]):
            config = {"dir": str(case), "user_message_index": index, "streaming_mode": "none"}
            response = client.post("/run", json={"appName": "tutors", "userId": user, "sessionId": session["id"],
                                                 "newMessage": message(turn["text"]),
                                                 "stateDelta": {"_adk_recordings_config": config}})
            assert response.status_code == 200, response.text
        saved = client.get(f"/apps/tutors/users/{user}/sessions/{session['id']}").json()
    (case / "generated-session.yaml").write_text(yaml.safe_dump(saved, sort_keys=False))
    shutil.copy(case / "generated-recordings.yaml", case / "generated-recordings-sse.yaml")
    shutil.copy(case / "generated-session.yaml", case / "generated-session-sse.yaml")


def _run_suite(adk_python: str, suite: Path, server: Served, mode: str) -> Any:
    return subprocess.run(
        [adk_python, "-m", "tools.conformance.run_suite", str(suite / "tests"), "--base-url", server.url, "--mode", mode],
        capture_output=True, text=True, cwd=str(ROOT), env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        timeout=300,
    )


@pytest.mark.parametrize("mode", ["none", "sse"])
def test_googles_client_replays_our_recording_and_passes(adk_python, suite, served, mode):
    done = _run_suite(adk_python, suite, served, mode)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"PASS core/transfer_001 [{mode}]" in done.stdout


def test_one_word_changed_in_a_recorded_request_fails_the_case(adk_python, suite, served, tmp_path):
    changed = tmp_path / "suite"
    shutil.copytree(suite / "tests", changed / "tests")
    recordings = changed / "tests" / "core" / "transfer_001" / "generated-recordings.yaml"
    text = recordings.read_text()
    assert "step by step" in text
    recordings.write_text(text.replace("step by step", "step after step"))
    done = _run_suite(adk_python, changed, served, "none")
    assert done.returncode == 1, done.stdout
    assert "FAIL core/transfer_001 [none]" in done.stdout
    assert "LLM request mismatch" in done.stdout + done.stderr and "step after step" in done.stdout + done.stderr
