"""`chronicle verify`: check every hash chain in the store; report the first broken link of each log."""

from __future__ import annotations

import argparse
from dataclasses import asdict
from typing import Any, Callable

from tools.cli.commands import summary
from tools.cli.commands.common import EXIT_BROKEN, CliError, open_store_for, store_url
from tools.cli.output import Output


def register(sub: Any, common: Callable[..., argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "verify",
        parents=[common()],
        help=summary("verify"),
        description="Check the hash chain of every session, artifact and memory log and of the purge "
        "audit log. An event "
        "edited, deleted or moved directly in the database breaks its log's chain at that point; "
        "events removed from the end of a log show as a log shorter than its catalog row. Each broken "
        "log is reported with its session and the first bad version, and the exit code is 4. The "
        "app: and user: values sessions read are checked against the log's fold of them too, and so is "
        "every other row derived from the logs: snapshots, catalog rows, the artifact versions sessions "
        "name, every blob's bytes, the memory index and the read models (docs/audit.md says what this "
        "proves without a seal key).",
    )
    p.add_argument("--app", help="only this app's sessions")
    p.add_argument("--user", help="only this user's sessions")
    p.add_argument("--session", help="only this session")
    p.add_argument("--since", metavar="POSITION|sealed",
                   help="only what was appended after this log position: the one a verify printed last, or "
                        "`sealed` (the newest seal's); checks those chains and catalog rows, and prints the "
                        "position to start from next time (derived rows are rechecked by a full verify)")
    from tools.cli.commands.seal import add_key_arguments

    add_key_arguments(p, "to check the whole store against its signed checkpoints too: sealed logs rewritten, "
                         "truncated or deleted since (see `chronicle seal`, docs/audit.md)")
    p.add_argument("--checkpoints", metavar="FILE", help="with a key: an exported copy of the checkpoints, to check")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, out: Output) -> int:
    from runtime.operations.audit import Report, audit, corrupt_report, logs_to_check
    from runtime.stores import file_integrity
    from tools.cli.commands.verify_seals import check_seals_for

    sealing = check_seals_for(args)  # the key and the exported copy are read before the store is opened
    damaged, restore = file_integrity(store_url(args))  # a damaged file may not even open as a store
    if damaged:
        return _print(Report(corrupt=damaged, restore=restore), None, out)
    store = open_store_for(args)
    if args.since is not None:
        return _verify_since(store, args, out)
    try:
        try:
            logs = logs_to_check(store, args.app, args.user, args.session)
            with out.progress("verifying", total=len(logs), unit="logs") as bar:
                report = audit(store, args.app, args.user, args.session, logs=logs, on_log=bar.update,
                               integrity=True)
        except Exception as error:  # noqa: BLE001 - a damaged database: reported as such (exit 4), else raised
            report = corrupt_report(store, error)
        seals = sealing(store) if not report.corrupt else None
    finally:
        store.close()
    return _print(report, seals, out)


def _verify_since(store: Any, args: argparse.Namespace, out: Output) -> int:
    from runtime.operations.audit import audit_since
    from runtime.operations.seal import sealed_position

    try:
        if args.app or args.user or args.session:
            raise CliError("--since checks the whole store's new events: leave out --app, --user and --session.")
        if args.since == "sealed":
            after = sealed_position(store)
            if after is None:
                raise CliError("--since sealed: this store has no seal yet; run a full `chronicle verify`.")
        elif args.since.isdigit():
            after = int(args.since)
        else:
            raise CliError(f"--since takes a log position (a number) or `sealed`, not {args.since!r}.")
        with out.progress("verifying", unit="logs") as bar:
            report = audit_since(store, after, on_log=bar.update)
    finally:
        store.close()
    return _print(report, None, out)


def _print(report: Any, seals: Any, out: Output) -> int:
    from tools.cli.commands.verify_seals import print_seals

    sealed_ok = seals is None or seals.ok
    if out.json_mode:
        out.json({"ok": report.ok and sealed_ok, "logs": report.logs, "events": report.events,
                  **({"since": report.since, "position": report.position} if report.since is not None else {}),
                  "broken": [asdict(b) for b in report.broken], "scoped": [asdict(m) for m in report.scoped],
                  "drifted": [asdict(d) for d in report.drifted], "corrupt": report.corrupt,
                  "notes": report.notes,
                  **({"restore": report.restore} if report.corrupt else {}),
                  **({"seals": asdict(seals) | {"ok": seals.ok}} if seals is not None else {})})
        return 0 if report.ok and sealed_ok else EXIT_BROKEN
    if seals is not None:
        print_seals(seals, out)
    for problem in report.corrupt:
        out.line(out.style("CORRUPT", "red", "bold") + f" {problem}")
    if report.corrupt:
        out.line(f"The database's own check finds its files damaged: {report.restore}.")
    for b in report.broken:
        at = f"version {b.version}" + (f" (event {b.event_id})" if b.event_id else "")
        out.line(out.style("BROKEN", "red", "bold") + f" {b.where} at {at}: {b.reason}")
    for m in report.scoped:
        whose = f"user {m.user_id} of app {m.app_name}" if m.user_id else f"app {m.app_name}"
        out.line(out.style("DRIFTED", "red", "bold") + f" {m.key} of {whose}: {m.reason}")
    for d in report.drifted:
        at = "".join(f" {label} {value}" for label, value in (("version", d.version), ("key", d.key))
                     if value is not None)
        seen = (f" (found {_short(d.found)}, expected {_short(d.expected)})"
                if d.found is not None or d.expected is not None else "")
        out.line(out.style("DRIFTED", "red", "bold") + f" {d.kind} of {d.where}{at}: {d.reason}{seen}")
    for note in report.notes:
        out.line(out.style("NOTE", "yellow") + f" {note}")
    summary = f"checked {report.logs} logs, {report.events:,} events: "
    if report.since is not None:
        summary = (f"checked what was appended after position {report.since} up to {report.position} "
                   f"(next time: --since {report.position}): {report.logs} logs, {report.events:,} events: ")
    if report.ok:
        out.line(summary + out.style("every chain holds", "green"))
        return 0 if sealed_ok else EXIT_BROKEN
    problems = [f"{n} {what}" for n, what in ((len(report.corrupt), "database problems"), (len(report.broken), "broken"),
                                              (len(report.scoped), "shared values drifted"),
                                              (len(report.drifted), "derived rows drifted"))
                if n]
    out.line(summary + out.style(", ".join(problems), "red", "bold"))
    return EXIT_BROKEN


def _short(value: Any, limit: int = 300) -> str:
    """A value as a line can show it (``--json`` gives it whole)."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
