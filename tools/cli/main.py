"""The `chronicle` command: see, replay, audit and repair what agents did, without writing Python.

Each subcommand lives in its own module under ``tools/cli/commands``; this module only builds the
parser and turns failures into one clear line and an exit code (see ``tools.cli.commands.common``).
"""

from __future__ import annotations

import argparse
import os
import sys

from runtime.stores import DEFAULT_STORE_URL
from tools.cli.commands import MODULES, modules_for
from tools.cli.commands.common import EXIT_ERROR, EXIT_STORE, CliError, output_for
from tools.cli.output import Output, reader_gone

EPILOG = f"""\
The store is chosen by --store URL, else $CHRONICLE_STORE, else {DEFAULT_STORE_URL}.
URLs: sqlite:///relative.db, sqlite:////absolute/path.db, postgresql://user:pass@host:5432/db.

Read commands take --json for scripts; tables and colour appear only on a terminal.
Exit codes: 0 done, 1 failed (the message says what to do), 2 bad usage,
3 the store cannot be opened, 4 verify found a broken chain.

Start with:  chronicle demo  then  chronicle sessions  and  chronicle history SESSION
Help on one command:  chronicle COMMAND --help
"""


def common_options(*, json_flag: bool = True) -> argparse.ArgumentParser:
    """Options every subcommand accepts after its name (given before it, they work too)."""
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument(
        "--store", default=argparse.SUPPRESS, metavar="URL",
        help=f"the store (default: $CHRONICLE_STORE or {DEFAULT_STORE_URL})",
    )
    if json_flag:
        parent.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print JSON, for scripts")
    parent.add_argument(
        "--color", choices=["auto", "always", "never"], default=argparse.SUPPRESS,
        help="colour output (default auto: only on a terminal, never with NO_COLOR set)",
    )
    return parent


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or of ``command`` alone (what parsing a command line needs)."""
    parser = argparse.ArgumentParser(
        prog="chronicle",
        description="Chronicle: an event-sourced agent runtime. Inspect, replay, audit and repair "
        "agent conversations recorded in a store.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--store", metavar="URL", help=f"the store (default: $CHRONICLE_STORE or {DEFAULT_STORE_URL})")
    parser.add_argument("--json", action="store_true", help="print JSON, for scripts (read commands)")
    parser.add_argument("--color", choices=["auto", "always", "never"], default="auto", help="colour output")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", title="commands")
    modules = modules_for(command)
    for module in modules:
        module.register(sub, common_options)
    if not modules:  # `chronicle --help`, no command or an unknown one: every command's name and line
        for commands in MODULES.values():
            for name, line in commands.items():
                sub.add_parser(name, help=line)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = build_parser(command_in(argv)).parse_args(argv)
    out = output_for(args)
    code = _run(args, out)
    try:
        out.stream.flush()  # here, not at exit, so a reader that left cannot change the exit code
    except BrokenPipeError:
        reader_gone(out.stream)
    except (OSError, ValueError):
        pass
    return code


def command_in(argv: list[str]) -> str | None:
    """The command a command line names: its first word that is not an option or an option's value."""
    words = iter(argv)
    for word in words:
        if word in ("--store", "--color"):
            next(words, None)  # its value
        elif not word.startswith("-"):
            return word
    return None


def _run(args: argparse.Namespace, out: Output) -> int:
    """The command's exit code; every failure becomes one line on stderr, never a traceback."""
    try:
        return int(args.func(args, out) or 0)
    except CliError as e:
        out.error(str(e))
        return e.code
    except KeyboardInterrupt:
        out.error("interrupted")
        return 130
    except BrokenPipeError:  # `chronicle … | head`, from a write that is not the output's own
        reader_gone(out.stream)
        return EXIT_ERROR
    except Exception as e:  # noqa: BLE001 - typed errors carry a message meant for people
        from domain.errors import ChronicleError, StoreError
        from runtime.stores import typed_error

        typed = e if isinstance(e, ChronicleError) else typed_error(e)
        if isinstance(typed, StoreError):
            out.error(str(typed))
            return EXIT_STORE
        if isinstance(typed, ChronicleError):
            out.error(str(typed))
            return EXIT_ERROR
        if isinstance(e, OSError):  # a file named on the command line: missing, a directory, not ours
            where = f": {e.filename}" if e.filename else ""
            out.error(f"{e.strerror or type(e).__name__}{where}")
            return EXIT_ERROR
        if os.environ.get("CHRONICLE_DEBUG"):
            raise
        out.error(f"unexpected error ({type(e).__name__}: {' '.join(str(e).split())[:500]}); "
                  "run again with CHRONICLE_DEBUG=1 to see where, and please report it")
        return EXIT_ERROR
