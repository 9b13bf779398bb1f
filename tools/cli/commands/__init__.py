"""The subcommands of `chronicle`, one module each; every module has ``register(sub, common)``.

A module is imported only when it is needed: ``chronicle sessions`` imports the sessions module
alone (start-up time is most of a short command's time), and ``chronicle --help``, a missing or an
unknown command import none: the list of commands and their one-line help is the table below."""

from __future__ import annotations

import importlib
from types import ModuleType

# Each module and the commands it registers with their one-line help, in the order `chronicle --help`
# lists them (tests/test_cli_startup.py checks that the modules register exactly these).
MODULES: dict[str, dict[str, str]] = {
    "demo": {"demo": "run a three-turn agent conversation and show its timeline"},
    "sessions": {"sessions": "list sessions (filter by app, user, date)"},
    "history": {"history": "a session's timeline: invocations, tool calls, state changes, rewinds"},
    "traces": {"traces": "a session's trace spans (OpenTelemetry GenAI), as JSON or sent over OTLP"},
    "pending": {"pending": "invocations waiting for a person (confirmations, credentials, inputs)"},
    "workflow": {"workflow": "a workflow run: each node's status, input, output, time; the graph as Mermaid or DOT"},
    "timetravel": {
        "state-at": "a session's state (and app:/user: state, artifacts) at any point of its history",
        "diff": "what changed in a session between two points, and which event wrote it",
    },
    "repair": {
        "rewind": "take a session back to just before an invocation (recorded, reversible)",
        "fork": "copy a session's history (up to an invocation) into a new session",
    },
    "replay": {"replay": "play a recorded session back event by event (or re-run it through an agent)"},
    "export": {"export": "a session as raw events (JSONL), a Markdown transcript or ADK session JSON"},
    "verify": {"verify": "check every event's hash chain; report tampering (exit 4)"},
    "seal": {"seal": "sign a checkpoint of every log's head (verify --key then catches rewrites and truncation)"},
    "prove": {"prove": "prove that an event is in its sealed log (a Merkle audit path to a signed checkpoint)"},
    "projections": {"projections": "read models: status with lag, catch up, rebuild (with progress)"},
    "analytics": {
        "analytics": "tables per app, agent, tool, workflow node, user and day (tokens, calls, errors, latency)",
    },
    "import_adk": {"import-adk": "import a google-adk SqliteSessionService / DatabaseSessionService database"},
    "purge": {"purge": "permanently delete a user's or a session's data (asks for --yes)"},
    "serve": {"serve": "serve the apps in AGENTS_DIR over ADK's HTTP API (plus rewind, fork, audit routes)"},
    "chat": {"run": "chat with an app in the terminal (AGENT_DIR as for `adk run`)"},
    "bench": {"bench": "measure Chronicle's figures on this machine"},
    "parity": {"parity": "run ADK-idiom apps on google-adk 2.13 and on Chronicle, and compare their transcripts"},
    "evaluation": {"eval": "score an agent on an eval set (as adk eval), or make one from recorded sessions"},
}


def summary(command: str) -> str:
    """The one line of help `chronicle --help` shows for ``command``, which its parser shows too."""
    return next(commands[command] for commands in MODULES.values() if command in commands)


def modules_for(command: str | None) -> list[ModuleType]:
    """The module that registers ``command``; none when it is None or no command's name (the list
    of commands is read from ``MODULES``)."""
    return [importlib.import_module(f"tools.cli.commands.{name}") for name, commands in MODULES.items()
            if command in commands]
