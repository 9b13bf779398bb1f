"""Chronicle prompts the model exactly as google-adk 2.13 does: for each app of `tools/parity`
(`request_apps/` and the parity apps), every model request is the same on both sides, field by
field (system instruction, tool declarations, contents, generation config, the tools it carries).

google-adk runs in its own environment (`.venv-adk`, or CHRONICLE_ADK_PYTHON); CI sets
CHRONICLE_REQUIRE_ADK=1, so a missing environment fails there instead of skipping.
"""

from __future__ import annotations

import json
import sys

import pytest

from tools.parity.check import batch_outputs, transcripts
from tools.parity.requests import FAILED, REQUEST_APPS, package_of, app_names, differences

MODULE = "tools.parity.requests"


@pytest.fixture(scope="module")
def both_sides(adk_python) -> tuple[dict[str, str], dict[str, str]]:
    """Every app's requests on each side: one process per side, both running at once."""
    apps = app_names()
    adk, chronicle = transcripts(adk_python, apps, "adk", MODULE), transcripts(sys.executable, apps, "chronicle", MODULE)
    return batch_outputs(adk, apps), batch_outputs(chronicle, apps)


@pytest.mark.parametrize("app", app_names())
def test_chronicle_sends_the_model_the_requests_google_adk_sends(app, both_sides):
    adk, chronicle = both_sides[0][app], both_sides[1][app]
    assert not adk.startswith(FAILED), adk
    if package_of(app) == REQUEST_APPS:  # written to call the model (a parity app may not: a workflow's)
        assert json.loads(adk)["requests"], "the app never called its model"
    assert differences(adk, chronicle) == ""


def test_one_changed_word_in_a_request_is_a_difference(both_sides):
    adk = both_sides[0]["transfer"]
    assert "Agent description: Handles invoices." in adk
    changed = adk.replace("Handles invoices.", "Handles receipts.", 1)
    diff = differences(adk, changed)
    assert "-" in diff and "Handles receipts." in diff and "+++ chronicle" in diff
