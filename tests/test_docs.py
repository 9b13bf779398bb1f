"""The docs run as written: every Python block of docs/guide.md and of the README, in order, and every
shell block of docs/cli.md, in order, each doc in one process in a fresh directory
(tests/doc_blocks.py runs them). Where a doc shows output it is compared with what was printed:

* a ```console block shows the output of the shell block before it: each of its lines must appear
  in that output, in order (ids, times and durations may differ; `…` stands for anything, and a
  line that is only `…` for lines left out);
* in Python, `print(...)  # → TEXT` shows what that print prints.

A `chronicle: …` failure line, a traceback or an "unexpected error" in a shell block's output fails
the test unless the doc shows that line."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Optional

from tests.doc_blocks import blocks

ROOT = Path(__file__).resolve().parent.parent

VARIABLE = [  # what differs from run to run, and the pattern of the same shape it stands for
    (r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d(:\d\d(\.\d+)?)?(\+00:00)?", r"\d{4}-\d\d-\d\d[ T][\d:.+]+"),
    (r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", r"[0-9a-f-]{36}"),
    (r"\b[0-9a-f]{8,}\b", r"[0-9a-f]+"),
    (r"[\d,.]+ (ms|s)\b", r"[\d,.]+ (ms|s)"),
]
TOKEN = re.compile("|".join(f"(?:{p})" for p, _ in VARIABLE) + r"|…|\s+")


def pattern(line: str) -> re.Pattern:
    """The regular expression a doc's line of output stands for."""
    out, last = [], 0
    for match in TOKEN.finditer(line.strip()):
        out.append(re.escape(line.strip()[last:match.start()]))
        text = match.group(0)
        if text == "…":
            out.append(".*?")
        elif text.isspace():
            out.append(r"\s+")
        else:
            out.append(next(repl for p, repl in VARIABLE if re.fullmatch(p, text)))
        last = match.end()
    out.append(re.escape(line.strip()[last:]))
    return re.compile("".join(out))


def unmatched(shown: str, printed: str) -> Optional[str]:
    """The first line of `shown` not found, in order, in `printed` (None when all are)."""
    actual = [line.strip() for line in printed.splitlines()]
    at = 0
    for line in shown.splitlines():
        if not line.strip() or line.strip() == "…":
            continue
        wanted = pattern(line)
        found = next((i for i in range(at, len(actual)) if wanted.fullmatch(actual[i])), None)
        if found is None:
            return line
        at = found + 1
    return None


def run_doc(kind: str, doc: Path, folder: Path, python: str = sys.executable) -> list[dict[str, Any]]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    env.pop("CHRONICLE_STORE", None)
    done = subprocess.run([python, "-m", "tests.doc_blocks", kind, str(doc)], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=900)
    assert "@@REPORT@@" in done.stdout, done.stderr[-3000:]
    return json.loads(done.stdout.split("@@REPORT@@", 1)[1])


def test_the_pattern_of_a_shown_line():
    assert pattern("session dinner-1 at version 5 (event 8e7887b4-… by concierge), 2026-11-23 21:21:27 UTC").fullmatch(
        "session dinner-1 at version 5 (event 2cb6590f-036f-435d-86ce-84ee6fd9c99c by concierge), 2026-11-27 00:41:22 UTC")
    assert not pattern("checked 9 logs, 55 events: every chain holds").fullmatch("checked 9 logs, 57 events: every chain holds")
    assert unmatched("a\n…\nc", "a\nb\nc") is None and unmatched("c\na", "a\nb\nc") == "a"


def test_every_shell_block_of_the_cli_tour_runs_and_prints_what_it_shows(tmp_path):
    doc = ROOT / "docs" / "cli.md"
    results = run_doc("shell", doc, tmp_path)
    outputs, last = iter(results), None
    for block in blocks(doc.read_text()):
        if block.lang in ("sh", "bash"):
            last = next(outputs)
            assert last["output"] is not None, f"docs/cli.md:{block.line} did not run"
        elif block.lang == "console" and last is not None:
            missing = unmatched(block.text, last["output"])
            assert missing is None, (f"docs/cli.md:{block.line} shows {missing!r}, which the block at line "
                                     f"{last['line']} did not print:\n{last['output']}")
    shown = "\n".join(b.text for b in blocks(doc.read_text()) if b.lang == "console")
    for result in results:  # a failure the tour does not show is a failure
        for line in result["output"].splitlines():
            failed = line.startswith("chronicle: ") or "Traceback" in line or "unexpected error" in line
            assert not failed or line in shown, f"docs/cli.md:{result['line']}: {line}"


def _python_doc(doc: Path, folder: Path, python: str = sys.executable) -> None:
    results = run_doc("python", doc, folder, python)
    assert [r["line"] for r in results if r["ran"]], f"no Python block of {doc.name} ran"
    for result in results:
        where = f"{doc.relative_to(ROOT)}:{result['line']}"
        assert result["error"] is None, f"{where} fails:\n{result['error']}\n{result['output']}"
        for shown in result["shown"]:
            printed = "\n".join(shown["printed"] or [])
            assert shown["printed"], f"{doc.name}:{shown['line']} shows output, but that line printed nothing"
            assert unmatched(shown["expected"], printed) is None, (
                f"{doc.name}:{shown['line']} shows {shown['expected']!r}, printed {printed!r}")


def test_every_python_block_of_the_guide_runs_and_prints_what_it_shows(tmp_path):
    _python_doc(ROOT / "docs" / "guide.md", tmp_path)


def test_every_python_block_of_the_readme_runs_and_prints_what_it_shows(tmp_path, adk_python):
    """In google-adk's environment, where Chronicle is installed too: one block is the bridge's line."""
    _python_doc(ROOT / "README.md", tmp_path, adk_python)
