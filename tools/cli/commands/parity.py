"""`chronicle parity`: ADK-idiom apps on google-adk 2.13 and on Chronicle, transcripts compared."""

from __future__ import annotations

import argparse
from typing import Any, Callable

from tools.cli.commands import summary
from tools.cli.commands.common import EXIT_USAGE, CliError
from tools.cli.output import Output


def register(sub: Any, common: Callable[..., argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "parity",
        parents=[common()],
        help=summary("parity"),
        description="Runs each app in tools/parity/apps (written against google.adk) on google-adk in its own "
        "environment and, with `google.adk` rewritten to `runtime`, on Chronicle, then says per app whether "
        "the transcripts (authors, texts, calls, responses, state deltas, final state, what the model saw) "
        "are the same. Exit 1 if any differs.",
    )
    p.add_argument("apps", nargs="*", help="which apps (default: all)")
    p.add_argument("--adk-python", default=None, metavar="PATH",
                   help="the interpreter with google-adk 2.13 (default: .venv-adk/bin/python)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, out: Output) -> int:
    from tools.parity.check import DEFAULT_ADK_PYTHON, as_json, check

    try:
        outcomes = check(args.adk_python or DEFAULT_ADK_PYTHON, args.apps or None)
    except FileNotFoundError as e:
        raise CliError(str(e)) from None
    except ValueError as e:
        raise CliError(str(e), EXIT_USAGE) from None
    if out.json_mode:
        print(as_json(outcomes))
    else:
        for outcome in outcomes:
            print(f"{outcome.app:14} {'same' if outcome.same else 'DIFFERENT'}")
            if outcome.diff:
                print("\n".join("    " + line for line in outcome.diff.splitlines()))
        same = sum(o.same for o in outcomes)
        print(f"{same} of {len(outcomes)} apps behave the same on Chronicle as on google-adk 2.13")
    return 0 if all(o.same for o in outcomes) else 1
