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

from tools.parity.requests import FAILED, REQUEST_APPS, package_of, app_names, differences, side_output





@pytest.mark.parametrize("app", app_names())
def test_chronicle_sends_the_model_the_requests_google_adk_sends(app, adk_python):
    adk, chronicle = side_output(adk_python, app, "adk"), side_output(sys.executable, app, "chronicle")
    assert not adk.startswith(FAILED), adk
    if package_of(app) == REQUEST_APPS:  # written to call the model (a parity app may not: a workflow's)
        assert json.loads(adk)["requests"], "the app never called its model"
    assert differences(adk, chronicle) == ""


def test_one_changed_word_in_a_request_is_a_difference(adk_python):
    adk = side_output(adk_python, "transfer", "adk")
    assert "Agent description: Handles invoices." in adk
    changed = adk.replace("Handles invoices.", "Handles receipts.", 1)
    diff = differences(adk, changed)
    assert "-" in diff and "Handles receipts." in diff and "+++ chronicle" in diff
