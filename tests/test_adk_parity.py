"""`chronicle parity`: each ADK-idiom app behaves on Chronicle as on google-adk 2.13.

google-adk runs in an environment of its own (it pins google-genai below 3): `.venv-adk`, or the
interpreter named by CHRONICLE_ADK_PYTHON. CI makes it and sets CHRONICLE_REQUIRE_ADK=1, so a
missing environment fails there instead of skipping.
"""

from __future__ import annotations

import os
import sys
import subprocess

import pytest

from tests.cli_helpers import cli
from tools.parity.check import FAILED, REPO, app_names, batch_outputs, transcript, transcripts


@pytest.fixture(scope="module")
def both_sides(adk_python) -> tuple[dict[str, str], dict[str, str]]:
    """Every app's transcript on each side: one process per side, both running at once."""
    apps = app_names()
    adk, chronicle = transcripts(adk_python, apps, "adk"), transcripts(sys.executable, apps, "chronicle")
    return batch_outputs(adk, apps), batch_outputs(chronicle, apps)


@pytest.mark.parametrize("app", app_names())
def test_the_app_behaves_on_chronicle_as_on_google_adk(app, both_sides):
    adk, chronicle = both_sides[0][app], both_sides[1][app]
    assert not adk.startswith(FAILED), adk
    assert not chronicle.startswith(FAILED), chronicle
    assert chronicle == adk


def test_an_app_in_a_batch_gives_what_it_gives_alone(both_sides, adk_python):
    """One process runs every app in turn: the last app (after all the others) must not see their state."""
    last = app_names()[-1]
    assert both_sides[0][last] == transcript(adk_python, last, "adk")
    assert both_sides[1][last] == transcript(sys.executable, last, "chronicle")


def test_the_command_says_per_app_and_exits_1_on_any_difference(adk_python, tmp_path):
    done = cli("parity", "weather_tool", "scopes", "--adk-python", adk_python)
    assert done.stdout.splitlines()[-1] == "2 of 2 apps behave the same on Chronicle as on google-adk 2.13"
    # An interpreter without google-adk fails on ADK's side: a difference, never "the same".
    failed = cli("parity", "confirmation", "--adk-python", sys.executable, expect=1)
    assert failed.stdout.startswith("confirmation   DIFFERENT\n    --- google-adk 2.13\n    +++ chronicle")


def test_the_command_explains_a_missing_environment_and_unknown_apps(tmp_path):
    missing = cli("parity", "--adk-python", str(tmp_path / "nope" / "python"), expect=1)
    assert "python -m venv .venv-adk" in missing.stderr and "Traceback" not in missing.stderr
    assert "unknown app(s) nope" in cli("parity", "nope", "--adk-python", sys.executable, expect=2).stderr


RUN_DEBUG_APP = '''
import asyncio
from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import InMemoryRunner
from google.genai import types


def lookup(city: str, note: str) -> dict:
    """Looks a city up."""
    return {"city": city, "facts": ["old"] * 40}


class Model(BaseLlm):
    model: str = "rule-model"

    async def generate_content_async(self, llm_request, stream=False):
        last = llm_request.contents[-1].parts[-1]
        if last.function_response is None:
            parts = [types.Part(text="hmm", thought=True), types.Part(text="Let me "), types.Part(text="look."),
                     types.Part(function_call=types.FunctionCall(name="lookup", args={"city": "Paris", "note": "x" * 80}))]
        else:
            parts = [types.Part(text="Paris is old.")]
        yield LlmResponse(content=types.Content(role="model", parts=parts))


async def main():
    runner = InMemoryRunner(agent=LlmAgent(name="guide", model=Model(), tools=[lookup]), app_name="debug")
    await runner.run_debug("Tell me about Paris", verbose=True)
    await runner.run_debug(["And again?"])


asyncio.run(main())
'''


def test_run_debug_prints_what_google_adk_prints(adk_python, tmp_path):
    outputs = {}
    for side, python, source in [
        ("adk", adk_python, RUN_DEBUG_APP),
        ("chronicle", sys.executable, RUN_DEBUG_APP.replace("google.adk", "runtime")),
    ]:
        script = tmp_path / f"{side}.py"
        script.write_text(source)
        done = subprocess.run([python, str(script)], capture_output=True, text=True, cwd=REPO, timeout=300,
                              env={**os.environ, "PYTHONPATH": REPO})
        assert done.returncode == 0, done.stderr
        outputs[side] = done.stdout
    assert outputs["chronicle"] == outputs["adk"]
    assert "guide > [Calling tool: lookup(" in outputs["adk"]  # the verbose lines are there to compare
