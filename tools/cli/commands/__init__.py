"""The subcommands of `chronicle`, one module each; every module has ``register(sub, common)``."""

from tools.cli.commands import (
    analytics, bench, chat, demo, evaluation, export, history, import_adk, parity, pending, projections, prove, purge, repair, replay,
    seal, serve, sessions, timetravel, traces, verify, workflow,
)

COMMANDS = [
    demo, sessions, history, traces, pending, workflow, timetravel, repair, replay, export, verify, seal, prove, projections,
    analytics, import_adk, purge, serve, chat, bench, parity, evaluation,
]
