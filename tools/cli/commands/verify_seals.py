"""`chronicle verify --key`: the part of verify that checks the store against its signed checkpoints."""

from __future__ import annotations

import argparse
from typing import Any, Callable, Optional

from tools.cli.commands.common import EXIT_USAGE, CliError
from tools.cli.commands.seal import key_from
from tools.cli.output import Output, plural


def check_seals_for(args: argparse.Namespace) -> Callable[[Any], Optional[Any]]:
    """What verify runs on the open store: the seal check when a key was given, else nothing.
    The key and the exported checkpoints are read now, so a bad one fails before the store opens."""
    from runtime.operations.seal import check_seals, read_exported

    key = key_from(args)
    if key is None:
        if args.checkpoints is not None:
            raise CliError("--checkpoints needs the key that signed them: add --key FILE or --key-env VAR.",
                           EXIT_USAGE)
        return lambda store: None
    exported = read_exported(args.checkpoints) if args.checkpoints is not None else []
    return lambda store: check_seals(store, key, exported)


def print_seals(report: Any, out: Output) -> None:
    for f in report.findings:
        at = f" at version {f.version}" if f.version is not None else ""
        out.line(out.style("UNSEALED", "red", "bold") + f" {f.where}{at}: {f.reason}")
    for note in report.purged:
        out.note(f"purged on record: {note}")
    summary = f"checked {plural(report.logs, 'sealed log')} against {plural(report.checkpoints, 'checkpoint')}"
    summary += f" (newest {report.latest})" if report.latest else ""
    if report.ok:
        out.line(summary + ": " + out.style("every log holds what was sealed", "green"))
    else:
        out.line(summary + ": " + out.style(f"{len(report.findings)} findings", "red", "bold"))
