"""The `chronicle` command: one module per command in `commands/`, output helpers in `output`."""

from tools.cli.main import main

__all__ = ["main"]
