"""The subcommands of `chronicle`, one module each; every module has ``register(sub, common)``."""

from tools.commands import demo, export, history, repair, purge, sessions, timetravel, verify

COMMANDS = [demo, sessions, history, timetravel, repair, export, verify, purge]
