"""google-adk 2.13's interpreter, for the tests that run the same thing on google-adk and compare.

google-adk pins google-genai below 3, so it lives in an environment of its own: `.venv-adk`, or
the interpreter named by CHRONICLE_ADK_PYTHON. CI makes it and sets CHRONICLE_REQUIRE_ADK=1, so a
missing environment fails there instead of skipping."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ADK_PYTHON = os.environ.get("CHRONICLE_ADK_PYTHON") or str(Path(__file__).resolve().parents[1] / ".venv-adk" / "bin" / "python")


def adk_python_or_skip() -> str:
    """The interpreter; a skip when it is missing, or a failure where it is required."""
    if not os.path.exists(ADK_PYTHON):
        message = f"google-adk 2.13's environment is missing ({ADK_PYTHON}); see README, Beside google-adk"
        if os.environ.get("CHRONICLE_REQUIRE_ADK") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return ADK_PYTHON
