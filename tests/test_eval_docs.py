"""docs/eval.md's blocks run, in order, in a fresh folder: the Python ones in one namespace, the `$ chronicle`
lines as commands (a trailing `# exit N` is the exit code they must give)."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys

from tests.cli_helpers import ROOT

BLOCK = re.compile(r"```(python|console)\n(.*?)```", re.S)


def test_the_eval_page_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(ROOT))
    monkeypatch.delenv("EVAL_AGENT_VARIANT", raising=False)
    (tmp_path / "tests").symlink_to(ROOT / "tests")  # the page names the agent's folder from the root
    namespace: dict = {}
    ran = 0
    for kind, body in BLOCK.findall((ROOT / "docs" / "eval.md").read_text()):
        if kind == "python":
            exec(compile(body, "docs/eval.md", "exec"), namespace)
            ran += 1
            continue
        for line in body.splitlines():
            if not line.startswith("$ "):
                continue
            command, _, expect = line[2:].partition("  # exit ")
            words = shlex.split(command)
            env = {k: v for k, v in os.environ.items() if k != "CHRONICLE_STORE"}
            while "=" in words[0]:
                key, _, value = words.pop(0).partition("=")
                env[key] = value
            assert words[0] == "chronicle"
            done = subprocess.run([sys.executable, "-m", "tools.cli", *words[1:]], capture_output=True, text=True,
                                  env={**env, "PYTHONPATH": str(ROOT)}, timeout=300)
            assert done.returncode == int(expect or 0), (line, done.stdout, done.stderr)
            ran += 1
    assert ran == 6
    assert (tmp_path / "eval.xml").read_text().count("<failure ") == 2
