"""`chronicle parity`: each ADK-idiom app behaves on Chronicle as on google-adk 2.13.

google-adk runs in an environment of its own (it pins google-genai below 3): `.venv-adk`, or the
interpreter named by CHRONICLE_ADK_PYTHON. CI makes it and sets CHRONICLE_REQUIRE_ADK=1, so a
missing environment fails there instead of skipping.
"""

from __future__ import annotations

import json
import os
import sys

import pytest

from tests.cli_helpers import cli
from tools.parity.check import FAILED, REPO, app_names, transcript

ADK_PYTHON = os.environ.get("CHRONICLE_ADK_PYTHON") or os.path.join(REPO, ".venv-adk", "bin", "python")

# The one deliberate difference (docs/hitl.md): Chronicle stores a confirmation's placeholder
# result before the request event, so a crash between them cannot leave the call to be re-asked.
REORDERED = {"confirmation"}


@pytest.fixture(scope="module")
def adk_python() -> str:
    if not os.path.exists(ADK_PYTHON):
        message = f"google-adk 2.13's environment is missing ({ADK_PYTHON}); see README, Beside google-adk"
        if os.environ.get("CHRONICLE_REQUIRE_ADK") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return ADK_PYTHON


@pytest.mark.parametrize("app", app_names())
def test_the_app_behaves_on_chronicle_as_on_google_adk(app, adk_python):
    adk, chronicle = transcript(adk_python, app, "adk"), transcript(sys.executable, app, "chronicle")
    assert not adk.startswith(FAILED), adk
    assert not chronicle.startswith(FAILED), chronicle
    if app not in REORDERED:
        assert chronicle == adk
        return
    adk, chronicle = json.loads(adk), json.loads(chronicle)
    assert chronicle["state"] == adk["state"] and chronicle["model_saw"] == adk["model_saw"]
    as_text = lambda events: sorted(json.dumps(e, sort_keys=True) for e in events)  # noqa: E731
    assert as_text(chronicle["events"]) == as_text(adk["events"])
    assert chronicle["events"] != adk["events"]  # else the deliberate difference is gone: drop it here


def test_the_command_says_per_app_and_exits_1_on_any_difference(adk_python, tmp_path):
    done = cli("parity", "weather_tool", "scopes", "--adk-python", adk_python)
    assert done.stdout.splitlines()[-1] == "2 of 2 apps behave the same on Chronicle as on google-adk 2.13"
    reordered = cli("parity", "confirmation", "--adk-python", adk_python, expect=1)
    assert reordered.stdout.startswith("confirmation   DIFFERENT\n    --- google-adk 2.13\n    +++ chronicle")


def test_the_command_explains_a_missing_environment_and_unknown_apps(tmp_path):
    missing = cli("parity", "--adk-python", str(tmp_path / "nope" / "python"), expect=1)
    assert "python -m venv .venv-adk" in missing.stderr and "Traceback" not in missing.stderr
    assert "unknown app(s) nope" in cli("parity", "nope", "--adk-python", sys.executable, expect=2).stderr
