"""Runs every parity app on google-adk 2.13 (in its own environment) and on Chronicle, and compares.

google-adk pins google-genai below 3, so its side runs in another interpreter (`--adk-python`,
by default `.venv-adk/bin/python`, the environment `chronicle bench adk` uses). Chronicle's side
runs in this interpreter. Each side runs in a process of its own, so neither sees the other.
"""

from __future__ import annotations

import difflib
import json
import os
import pkgutil
import subprocess
import sys
from dataclasses import dataclass
from typing import Optional

import tools.parity.apps as apps_package

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_ADK_PYTHON = os.path.join(".venv-adk", "bin", "python")
FAILED = "failed: "  # how a side that did not finish reads, so two failures never count as the same


@dataclass
class Outcome:
    app: str
    same: bool
    diff: str  # the transcripts' first differences, empty when the same


def app_names() -> list[str]:
    return sorted(m.name for m in pkgutil.iter_modules(apps_package.__path__) if m.name != "rule_model")


def transcript(python: str, app: str, side: str, module: str = "tools.parity.transcript") -> str:
    """The app's transcript on one side (or what another `module` prints of it, e.g. its model
    requests), or the error that stopped it, as text to compare."""
    env = {**os.environ, "PYTHONPATH": REPO + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run(
        [python, "-m", module, app, "--side", side],
        capture_output=True, text=True, cwd=REPO, env=env, timeout=300,
    )
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
        return f"{FAILED}{last}\n"
    return done.stdout


def transcripts(python: str, apps: list[str], side: str, module: str = "tools.parity.transcript"
                ) -> subprocess.Popen:
    """Starts one process that prints every app's output on one side (`{app: text}`, see `run_side`):
    read it with `batch_outputs`. Started, not awaited, so both sides can run at once."""
    env = {**os.environ, "PYTHONPATH": REPO + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.Popen([python, "-m", module, *apps, "--side", side, "--batch"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=REPO, env=env)


def batch_outputs(started: subprocess.Popen, apps: list[str], timeout: float = 900) -> dict[str, str]:
    """Each app's text from a `transcripts` process; every app reads FAILED when the process died."""
    out, err = started.communicate(timeout=timeout)
    if started.returncode != 0:
        last = (err.strip().splitlines() or ["(no output)"])[-1]
        return {app: f"{FAILED}{last}\n" for app in apps}
    return json.loads(out)


def compare(app: str, adk: str, chronicle: str, *, context: int = 3, limit: int = 60) -> Outcome:
    """The app's two transcripts compared: the same, or their first differences."""
    if adk == chronicle and not adk.startswith(FAILED):
        return Outcome(app, True, "")
    lines = difflib.unified_diff(
        adk.splitlines(), chronicle.splitlines(), "google-adk 2.13", "chronicle", n=context, lineterm=""
    )
    return Outcome(app, False, "\n".join(list(lines)[:limit]))


def check(adk_python: str, only: Optional[list[str]] = None) -> list[Outcome]:
    if not os.path.exists(adk_python):
        raise FileNotFoundError(
            f"{adk_python} not found. Make google-adk's environment first: python -m venv .venv-adk && "
            ".venv-adk/bin/pip install -e '.[adk]'"
        )
    names = only or app_names()
    unknown = sorted(set(names) - set(app_names()))
    if unknown:
        raise ValueError(f"unknown app(s) {', '.join(unknown)}; choose from {', '.join(app_names())}")
    adk, chronicle = transcripts(adk_python, names, "adk"), transcripts(sys.executable, names, "chronicle")
    adk_texts, chronicle_texts = batch_outputs(adk, names), batch_outputs(chronicle, names)
    return [compare(name, adk_texts[name], chronicle_texts[name]) for name in names]


def as_json(outcomes: list[Outcome]) -> str:
    return json.dumps([o.__dict__ for o in outcomes], indent=1)
