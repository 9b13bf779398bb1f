"""The command line starts fast: a command that only reads the log imports no agent runtime.

Importing google-genai and the agents took a second or more before any command ran; the read
commands now import only the store. (`chronicle bench cli` measures the time itself.)"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from runtime import session_service_from_url
from tests.cli_helpers import ROOT, cli, cli_json

# Modules a read command must not import: google-genai, the event model built on it, the agents.
AGENT_RUNTIME = ["google.genai", "domain.events", "runtime.agents", "runtime.runner", "runtime.models", "runtime.tools"]
# What opening a whole store imports, and listing its sessions does not (its catalog is read on a
# connection of its own): the store's library, pydantic, the session log's classes.
STORE_LIBRARY = ["eventsourcing", "pydantic", "pydantic_core", "domain.session_log", "runtime.stores.base", "asyncio"]

PROBE = """
import json, sys
from tools.cli.main import main
try:
    code = main(sys.argv[1:])
except SystemExit as e:
    code = e.code
print(json.dumps({"code": code, "modules": sorted(sys.modules)}), file=sys.stderr)
"""


def imported_by(*args: str) -> tuple[int, set[str]]:
    """The exit code of ``chronicle ARGS`` in a fresh interpreter, and every module it imported."""
    done = subprocess.run([sys.executable, "-c", PROBE, *args], cwd=ROOT, capture_output=True, text=True, timeout=120)
    report = json.loads(done.stderr.strip().splitlines()[-1])
    return report["code"], set(report["modules"])


def agent_modules(modules: set[str], packages: list[str] = AGENT_RUNTIME) -> list[str]:
    return sorted(m for m in modules if any(m == a or m.startswith(a + ".") for a in packages))


def test_help_imports_no_agent_runtime():
    code, modules = imported_by("--help")
    assert code == 0
    assert agent_modules(modules) == []
    assert agent_modules(modules, STORE_LIBRARY) == []  # --help opens no store either
    # nor any command's module: the list of commands and their lines is tools/cli/commands' table
    assert sorted(m for m in modules if m.startswith("tools.cli.commands.")) == ["tools.cli.commands.common"]


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
async def test_sessions_imports_no_agent_runtime(kind, request, tmp_path):
    url = f"sqlite:///{tmp_path}/s.db" if kind == "sqlite" else request.getfixturevalue("postgres_url")
    service = session_service_from_url(url)
    await service.create_session(app_name="app", user_id="ann", session_id="s1", state={"k": 1})
    await service.close()

    code, modules = imported_by("--store", url, "--json", "sessions")
    assert code == 0
    assert agent_modules(modules) == []
    # psycopg imports asyncio itself; the store's pool is not needed
    library = STORE_LIBRARY if kind == "sqlite" else [*(m for m in STORE_LIBRARY if m != "asyncio"), "psycopg_pool"]
    assert agent_modules(modules, library) == []


@pytest.mark.parametrize("command", [["history", "s1"], ["state-at", "s1"], ["diff", "s1", "v1"], ["export", "s1"],
                                     ["export", "s1", "--format", "markdown"]])
async def test_history_time_travel_and_exports_import_no_agent_runtime(command, tmp_path):
    """They fold or copy the log's stored JSON (the timeline, the state at a point, a rewind's marker,
    the raw events): the event model and google-genai are not needed (ADK's session JSON needs them)."""
    url = f"sqlite:///{tmp_path}/s.db"
    service = session_service_from_url(url)
    await service.create_session(app_name="app", user_id="ann", session_id="s1", state={"k": 1})
    await service.close()

    code, modules = imported_by("--store", url, "--json", *command)
    assert code == 0
    assert agent_modules(modules) == []


@pytest.mark.slow
def test_runtime_names_still_import_from_the_package():
    """``from runtime import …`` (ADK's shape) works though the package imports its names lazily."""
    done = subprocess.run(
        [sys.executable, "-c",
         "import runtime, sys\n"
         "assert 'runtime.agents' not in sys.modules\n"
         "from runtime import App, InMemoryRunner, LlmAgent, Runner, Event\n"
         "assert LlmAgent.__module__.startswith('runtime.agents') and 'Runner' in dir(runtime)\n"
         "missing = [n for n in runtime.__all__ if getattr(runtime, n, None) is None]\n"
         "assert not missing, missing\n"
         "try:\n    runtime.NoSuchName\nexcept AttributeError as e:\n    print(e)\n"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "has no attribute 'NoSuchName'" in done.stdout


@pytest.mark.slow
def test_bench_cli_times_the_commands_beside_adk():
    from tools.bench.cli import find_adk

    if find_adk() is None:  # CI makes google-adk's environment and sets CHRONICLE_ADK_PYTHON
        assert "no `adk`" in cli("bench", "cli", "--quick", "--runs", "1", expect=1).stderr
        return
    table = cli_json("bench", "cli", "--quick", "--runs", "1")
    rows = {row[0]: row for row in table["rows"]}
    assert set(rows) == {"python -c pass", "adk --help", "chronicle --help", "chronicle sessions"}
    assert rows["adk --help"][3] == "1.00×" and all(float(row[1]) > 0 for row in rows.values())


def test_each_command_is_found_in_the_module_that_registers_it():
    """`chronicle NAME` builds NAME's parser alone, from the module tools/cli/commands/__init__.py
    names for it, and `chronicle --help` lists the table's commands and lines without importing one:
    the table must say what the modules register, in `chronicle --help`'s order."""
    import argparse

    from tools.cli.commands import MODULES
    from tools.cli.main import build_parser, command_in

    def commands(parser: argparse.ArgumentParser) -> dict[str, str]:
        """The parser's commands and the line of help each shows in `chronicle --help`."""
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        return {a.dest: a.help for a in sub._choices_actions}

    listed = {name: line for names in MODULES.values() for name, line in names.items()}
    assert list(commands(build_parser())) == list(listed) and commands(build_parser()) == listed
    for names in MODULES.values():
        for name in names:
            assert commands(build_parser(name)) == names  # what the module registers, with the table's lines
    assert command_in(["--store", "history", "--json", "--color", "never", "state-at", "s1"]) == "state-at"
    assert command_in(["--json"]) is None and command_in(["nope", "x"]) == "nope"
