"""Running the `chronicle` command as an operator would: its arguments, environment, input, output
and exit code.

By default the command runs in this process (``tools.cli.main.main``, in a thread of its own so that
its ``asyncio.run`` works inside an async test): a new interpreter per call was most of a CLI test's
time, and what those tests check is the command, not the interpreter starting. ``process=True``
runs the real ``python -m tools.cli`` in a subprocess, for what only a process shows: a changed
PYTHONPATH, pipes, exit at interpreter level (tests/test_cli_errors.py keeps a few of those)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, Iterator

ROOT = Path(__file__).resolve().parent.parent

# What a test's environment must not pass on to the command: a store, model keys, NO_COLOR.
UNSET = ("CHRONICLE_STORE", "GOOGLE_API_KEY", "GEMINI_API_KEY", "NO_COLOR")
TIMEOUT = 300


def cli(*args: str, store: str | None = None, expect: int | None = 0, env: dict[str, str] | None = None,
        input: str | None = None, process: bool = False) -> subprocess.CompletedProcess[str]:
    """Runs ``chronicle ARGS`` (with ``--store`` first when given); checks the exit code."""
    argv = [*(["--store", store] if store else []), *args]
    done = (_in_a_process if process else _in_this_process)(argv, env or {}, input)
    if expect is not None:
        assert done.returncode == expect, (
            f"`chronicle {' '.join(args)}` exited {done.returncode}, expected {expect}\n"
            f"stdout:\n{done.stdout}\nstderr:\n{done.stderr}"
        )
    return done


def cli_json(*args: str, store: str | None = None) -> Any:
    return json.loads(cli(*args, "--json", store=store).stdout)


def _in_a_process(argv: list[str], env: dict[str, str], input: str | None) -> subprocess.CompletedProcess[str]:
    full_env = {k: v for k, v in os.environ.items() if k not in UNSET}
    full_env.update(env)
    return subprocess.run([sys.executable, "-m", "tools.cli", *argv], cwd=ROOT, env=full_env, capture_output=True,
                          text=True, input=input, timeout=TIMEOUT)


def _in_this_process(argv: list[str], env: dict[str, str], input: str | None) -> subprocess.CompletedProcess[str]:
    from tools.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    result: dict[str, Any] = {}

    def run() -> None:
        try:
            result["code"] = main(argv)
        except SystemExit as e:  # argparse: --help, bad usage
            if isinstance(e.code, str):
                print(e.code, file=sys.stderr)
            result["code"] = e.code if isinstance(e.code, int) else int(e.code is not None)
        except BaseException as e:  # noqa: BLE001 - raised again in the test's thread
            result["error"] = e

    with _environment(env), contextlib.chdir(ROOT), contextlib.redirect_stdout(out), \
            contextlib.redirect_stderr(err), _stdin(input):
        thread = threading.Thread(target=run, name="chronicle-cli", daemon=True)
        thread.start()
        thread.join(TIMEOUT)
    if thread.is_alive():
        raise TimeoutError(f"`chronicle {' '.join(argv)}` still running after {TIMEOUT} s")
    if "error" in result:
        raise result["error"]
    return subprocess.CompletedProcess(["chronicle", *argv], result["code"], out.getvalue(), err.getvalue())


@contextlib.contextmanager
def _environment(env: dict[str, str]) -> Iterator[None]:
    saved = dict(os.environ)
    for name in UNSET:
        os.environ.pop(name, None)
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


@contextlib.contextmanager
def _stdin(text: str | None) -> Iterator[None]:
    saved = sys.stdin
    sys.stdin = io.StringIO(text or "")
    try:
        yield
    finally:
        sys.stdin = saved
