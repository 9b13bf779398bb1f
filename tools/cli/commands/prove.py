"""`chronicle prove SESSION EVENT`: an inclusion proof that an event is in its sealed log."""

from __future__ import annotations

import argparse
import re
from dataclasses import asdict
from typing import Any, Callable

from tools.cli.commands import summary
from tools.cli.commands.common import EXIT_BROKEN, CliError, add_session_arguments, find_session, open_store_for
from tools.cli.commands.seal import add_key_arguments, key_from
from tools.cli.output import Output


def register(sub: Any, common: Callable[..., argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "prove",
        parents=[common()],
        help=summary("prove"),
        description="Print an inclusion proof that EVENT is in SESSION's log as the newest checkpoint sealing "
        "it recorded: the audit path from the event's chain link to the log's sealed Merkle root, and from the "
        "log's head to the checkpoint's root, then check both (and, with a key, the checkpoint's signature). "
        "Exit 4 when the proof does not hold. See docs/audit.md.",
    )
    add_session_arguments(p)
    p.add_argument("event", metavar="EVENT",
                   help="the event: its version as `chronicle history` shows it (v3 or 3), event:ID, or its id "
                        "(`chronicle history SESSION --full` shows ids)")
    add_key_arguments(p, "to check the checkpoint's signature with (Ed25519: the .pub file is enough)")
    p.set_defaults(func=run)


def event_id(store: Any, row: Any, text: str) -> str:
    """The id of the event EVENT names: a version (`v3`, `3`, as history prints it), `event:ID`, or an id."""
    value = text.strip()
    if value.startswith("event:"):
        return value[len("event:"):]
    if not re.fullmatch(r"v?\d+", value):
        return value
    from runtime.operations.history import load_history

    version = int(value.lstrip("v"))
    steps = {s.version: s.event_id for inv in load_history(store, row).timeline.invocations for s in inv.steps}
    if version not in steps:
        raise CliError(f"Session {row.session_id!r} has no event at version {version}: `chronicle history "
                       f"{row.session_id}` lists its events with their versions (v2 onwards; v1 is its creation).")
    return steps[version]


def run(args: argparse.Namespace, out: Output) -> int:
    from runtime.operations.seal import prove

    key = key_from(args)
    store = open_store_for(args)
    try:
        row = find_session(store, args.session, args.app, args.user)
        proof = prove(store, row.app_name, row.user_id, row.session_id, event_id(store, row, args.event), key)
    finally:
        store.close()
    if out.json_mode:
        out.json(asdict(proof))
        return 0 if proof.holds else EXIT_BROKEN
    out.line(f"event {proof.event_id}: version {proof.version} of session {proof.session_id} "
             f"(app {proof.app_name}, user {proof.user_id}, log {proof.log_id})")
    out.line(f"leaf {proof.version - 1} of {proof.tree_size}: chain link {proof.leaf}")
    out.line(f"audit path to the log's sealed root {proof.log_root}:")
    for step in proof.path:
        out.line(f"  {step}")
    out.line(f"checkpoint #{proof.checkpoint} sealed {proof.sealed_time}, key id {proof.key_id}, root "
             f"{proof.checkpoint_root}; the log's head is leaf {proof.head_index} of {proof.heads}:")
    for step in proof.head_path:
        out.line(f"  {step}")
    if not proof.holds:
        out.line(out.style("DOES NOT HOLD", "red", "bold") + f": {proof.problem}")
        return EXIT_BROKEN
    signed = "its signature holds under the key given" if proof.signature_checked else (
        "signature NOT checked: give --key to check it")
    out.line(out.style("holds", "green") + f": the event is in the sealed log; {signed}")
    return 0
