"""`chronicle import-adk`: bring a google-adk session database into the store, idempotently."""

from __future__ import annotations

import argparse
from dataclasses import asdict
from typing import Any, Callable

from tools.cli.commands import summary
from tools.cli.commands.common import open_store_for, redact
from tools.cli.output import Output, plural


def register(sub: Any, common: Callable[..., argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "import-adk",
        parents=[common()],
        help=summary("import-adk"),
        description="Import the sessions, events and app:/user: state of a google-adk session database "
        "into the store (created if missing), keeping session ids, event ids, authors and timestamps. "
        "Reads DatabaseSessionService databases (schema v1, google-adk >= 1.22, and schema v0 with "
        "pickled actions, earlier releases) on SQLite or PostgreSQL, and SqliteSessionService files. "
        "Running it again imports only events not imported yet.",
        epilog="SOURCE: a SQLite file, sqlite:///path.db, or postgresql://user:pass@host:port/db. The source "
        "is opened read-only.",
    )
    p.add_argument("source", metavar="SOURCE", help="the ADK database")
    p.add_argument("--app", help="only this app's sessions")
    p.add_argument("--dry-run", action="store_true", help="count what would be imported; write nothing")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, out: Output) -> int:
    from runtime.operations.adk_source import open_source
    from runtime.operations.import_adk import Importer

    source = open_source(args.source)
    try:
        store = open_store_for(args, must_exist=False)
        try:
            with out.progress("importing", unit="sessions") as bar:
                report = Importer(store, source, dry_run=args.dry_run).run(
                    args.app, on_session=lambda i, n: bar.update(i, n)
                )
        finally:
            store.close()
    finally:
        source.close()
    report.source = redact(report.source)
    if out.json_mode:
        out.json(asdict(report))
        return 0
    verb = "would import" if report.dry_run else "imported"
    out.line(f"{report.source}: {report.layout}, {plural(report.sessions_found, 'session')}")
    out.line(f"{verb} {plural(report.events_imported, 'event')}: {plural(report.sessions_created, 'new session')}, "
             f"{plural(report.sessions_extended, 'session')} extended, {report.sessions_unchanged} already up to date"
             + (f" ({plural(report.events_present, 'event')} {'was' if report.events_present == 1 else 'were'} already here)" if report.events_present else ""))
    if report.reconciled:
        out.line(f"{report.reconciled} state differences recorded as events by chronicle-import")
    if report.fields_kept:
        out.line(f"{report.fields_kept} events had ADK fields Chronicle does not model: kept in custom_metadata.adk_import")
    for reason in report.skipped:
        out.warn(f"skipped {reason}")
    return 0
