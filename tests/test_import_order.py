"""Every public package imports first, in a fresh interpreter: the lazy top-level names
(`from runtime import Workflow`) load one package before the others, so an import cycle that the
old eager order hid shows up only when a user's first import is that package."""

from __future__ import annotations

import subprocess
import sys

from tools.parity.check import REPO

FIRST_IMPORTS = [
    "runtime.workflow", "runtime.invocation_context", "runtime.agents", "runtime.runners",
    "runtime.tools", "runtime.sessions", "runtime.events", "runtime.models", "runtime.apps",
    "runtime.evaluation", "runtime.server.app",
]


def test_each_public_package_imports_first_in_a_fresh_interpreter():
    running = {name: subprocess.Popen([sys.executable, "-c", f"import {name}"], cwd=REPO,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
               for name in FIRST_IMPORTS}
    failed = {}
    for name, process in running.items():
        _, err = process.communicate(timeout=120)
        if process.returncode != 0:
            failed[name] = err.strip().splitlines()[-1]
    assert failed == {}
