"""The subcommands of `chronicle`, one module each; every module has ``register(sub, common)``.

A module is imported only when it is needed: ``chronicle sessions`` imports the sessions module
alone (start-up time is most of a short command's time); ``chronicle --help``, a missing or an
unknown command import them all."""

from __future__ import annotations

import importlib
from types import ModuleType

# Each module and the commands it registers, in the order `chronicle --help` lists them
# (tests/test_cli_startup.py checks that the modules register exactly these).
MODULES: dict[str, tuple[str, ...]] = {
    "demo": ("demo",), "sessions": ("sessions",), "history": ("history",), "traces": ("traces",),
    "pending": ("pending",), "workflow": ("workflow",), "timetravel": ("state-at", "diff"),
    "repair": ("rewind", "fork"), "replay": ("replay",), "export": ("export",), "verify": ("verify",),
    "seal": ("seal",), "prove": ("prove",), "projections": ("projections",), "analytics": ("analytics",),
    "import_adk": ("import-adk",), "purge": ("purge",), "serve": ("serve",), "chat": ("run",),
    "bench": ("bench",), "parity": ("parity",), "evaluation": ("eval",),
}


def modules_for(command: str | None) -> list[ModuleType]:
    """The module that registers ``command``; every module when it is None or no command's name."""
    names = [name for name, commands in MODULES.items() if command in commands] or list(MODULES)
    return [importlib.import_module(f"tools.cli.commands.{name}") for name in names]
