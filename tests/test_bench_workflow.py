"""`chronicle bench workflow` runs (tiny sizes, no timed assertions): in google-adk's environment it
prints both sides and the resume figures; without google-adk it says how to get it."""

from __future__ import annotations

import os
import subprocess

from tests.cli_helpers import cli
from tools.parity.check import REPO

ROOT = str(REPO)


def test_the_bench_runs_both_sides_and_the_resume(adk_python):  # noqa: F811
    done = subprocess.run(
        [adk_python, "-m", "tools.cli", "bench", "workflow", "--stores", "memory,sqlite", "--quick", "--runs", "1",
         "--markdown"],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": ROOT}, capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith("| ")]
    speed = [r for r in rows if "11 nodes run: ms per node" in r]
    assert [r.split(" | ")[0] for r in speed] == ["| memory (InMemorySessionService)", "| sqlite (SqliteSessionService)"]
    assert all(r.split(" | ")[4].endswith("x") for r in speed)  # the ratio Chronicle / ADK
    resumes = [r for r in rows if "resume after" in r]
    assert [r.split(" | ")[1] for r in resumes] == [f"resume after {k} of 20 finished" for k in (0, 5, 15)] * 2


def test_without_google_adk_the_bench_says_how_to_install_it(tmp_path):
    (tmp_path / "google" / "adk").mkdir(parents=True)
    (tmp_path / "google" / "adk" / "__init__.py").write_text("raise ImportError('no google-adk here')\n")
    done = cli("bench", "workflow", "--stores", "memory", "--quick", expect=1,
               env={"PYTHONPATH": f"{tmp_path}{os.pathsep}{ROOT}"}, process=True)
    assert "google-adk is not installed" in done.stderr
    assert "pip install -e '.[adk]'" in done.stderr and "Traceback" not in done.stderr
