"""The subcommands of `chronicle`, one module each; every module has ``register(sub, common)``."""

from tools.commands import analytics, bench, demo, export, history, import_adk, repair, projections, purge, replay, sessions, timetravel, verify, workflow

COMMANDS = [demo, sessions, history, workflow, timetravel, repair, replay, export, verify, projections, analytics, import_adk, purge, bench]
