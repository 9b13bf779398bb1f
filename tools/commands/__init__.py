"""The subcommands of `chronicle`, one module each; every module has ``register(sub, common)``."""

from tools.commands import demo, export, history, repair, sessions, timetravel

COMMANDS = [demo, sessions, history, timetravel, repair, export]
