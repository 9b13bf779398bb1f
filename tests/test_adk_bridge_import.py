"""The bridge for stock google-adk is an optional extra: without google-adk, importing it says
which extra to install; and the rest of Chronicle imports without google-adk."""

from __future__ import annotations

import subprocess
import sys

from tests.cli_helpers import ROOT

# Runs with google.adk made unimportable, whether or not this environment has it.
WITHOUT_ADK = "import sys; sys.modules['google.adk'] = None\n"


def run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", WITHOUT_ADK + code], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)


def test_importing_the_bridge_without_google_adk_names_the_extra():
    done = run("import runtime.adk_bridge")
    assert done.returncode == 1
    assert "ImportError: runtime.adk_bridge" in done.stderr and "pip install 'chronicle[adk]'" in done.stderr


def test_chronicle_imports_without_google_adk():
    done = run("import runtime, runtime.operations.import_adk, tools.cli, domain.adk_json; print('ok')")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
