"""`chronicle bench eval` runs (tiny sizes, no timed assertions): in google-adk's environment it prints both
sides' cases per second and the ratio; without google-adk it says how to get it."""

from __future__ import annotations

import os
import subprocess

from tests.cli_helpers import cli
from tools.parity.check import REPO

ROOT = str(REPO)


def test_the_bench_runs_both_sides(adk_python):  # noqa: F811
    done = subprocess.run(
        [adk_python, "-m", "tools.cli", "bench", "eval", "--quick", "--runs", "1", "--json"],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": ROOT}, capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stderr
    import json

    table = json.loads(done.stdout)
    assert table["headers"] == ["runtime", "cases/s", "× google-adk"]
    assert [r[0] for r in table["rows"]] == ["google-adk 2.13", "chronicle"]
    assert float(table["rows"][1][1].replace(",", "")) > 0 and float(table["rows"][1][2]) > 0


def test_without_google_adk_the_bench_says_how_to_install_it(tmp_path):
    (tmp_path / "google" / "adk").mkdir(parents=True)
    (tmp_path / "google" / "adk" / "__init__.py").write_text("raise ImportError('no google-adk here')\n")
    done = cli("bench", "eval", "--quick", expect=1, env={"PYTHONPATH": f"{tmp_path}{os.pathsep}{ROOT}"})
    assert "google-adk (with rouge-score) is not installed" in done.stderr and "Traceback" not in done.stderr
    assert "unknown store kind" in cli("bench", "eval", "--stores", "sqlite", expect=1).stderr
