"""`chronicle seal`: sign a checkpoint of every log's head with a key kept outside the store;
export the checkpoints; make a key. See docs/audit.md."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any, Callable

from tools.cli.commands import summary
from tools.cli.commands.common import EXIT_USAGE, CliError, open_store_for
from tools.cli.output import Output, plural


def add_key_arguments(parser: argparse.ArgumentParser, purpose: str) -> None:
    """--key FILE / --key-env VAR, shared by seal, verify and prove."""
    keys = parser.add_mutually_exclusive_group()
    keys.add_argument("--key", metavar="FILE", help=f"the seal key file, {purpose}")
    keys.add_argument("--key-env", metavar="VAR", help="the environment variable holding the seal key instead")


def key_from(args: argparse.Namespace) -> Any:
    """The key the arguments name (None when none is named)."""
    from runtime.operations.seal import load_key

    if args.key is None and args.key_env is None:
        return None
    return load_key(args.key, args.key_env)


def register(sub: Any, common: Callable[..., argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "seal",
        parents=[common()],
        help=summary("seal"),
        description="Write a signed checkpoint of the store: the head (version, chain link, Merkle root) of "
        "every session, artifact, memory and purge log that changed since the last checkpoint, signed with a key "
        "kept outside the database (Ed25519 or HMAC-SHA256). `chronicle verify --key` then catches logs rewritten "
        "with recomputed links, truncated or deleted after the seal. Export the checkpoints (--export) to a place "
        "the database's owner cannot write. See docs/audit.md.",
    )
    add_key_arguments(p, "to sign with (make one with --new-key)")
    p.add_argument("--every", type=float, metavar="SECONDS", help="keep sealing, every SECONDS, until interrupted")
    p.add_argument("--export", metavar="FILE", help="write the store's checkpoints as JSON lines to FILE ('-': stdout)")
    p.add_argument("--new-key", metavar="FILE",
                   help="make a new key in FILE (mode 0600; for Ed25519 also FILE.pub, which only verifies)")
    p.add_argument("--algorithm", choices=["ed25519", "hmac-sha256"], default="ed25519",
                   help="the new key's algorithm (default ed25519)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, out: Output) -> int:
    if args.new_key is not None:
        return _new_key(args, out)
    key = key_from(args)
    if key is None and args.export is None:
        raise CliError("Give --key FILE or --key-env VAR to seal, --export FILE to export the checkpoints, or "
                       "--new-key FILE to make a key.", EXIT_USAGE)
    if args.every is not None and (key is None or args.every <= 0):
        raise CliError("--every needs a key and a number of seconds above 0.", EXIT_USAGE)
    store = open_store_for(args)
    try:
        if key is not None:
            _seal(store, key, out)
            while args.every is not None:
                time.sleep(args.every)
                _seal(store, key, out, keep_going=True)
        if args.export is not None:
            _export(store, args.export, out)
    finally:
        store.close()
    return 0


def _new_key(args: argparse.Namespace, out: Output) -> int:
    from runtime.operations.seal import write_new_key

    key, public_path = write_new_key(args.new_key, args.algorithm)
    if out.json_mode:
        out.json({"key_file": args.new_key, "public_key_file": public_path, "algorithm": key.algorithm,
                  "key_id": key.key_id})
        return 0
    out.line(f"wrote a new {key.algorithm} seal key to {args.new_key} (mode 0600), key id {key.key_id}")
    if public_path:
        out.line(f"wrote its public half to {public_path}: it verifies checkpoints but cannot make them")
    out.note("Keep the key outside the database and away from whoever administers it.")
    return 0


def _seal(store: Any, key: Any, out: Output, *, keep_going: bool = False) -> None:
    from domain.errors import ChronicleError
    from runtime.operations.seal import seal, stored_checkpoints

    try:
        written = seal(store, key)
    except ChronicleError as e:
        if not keep_going:
            raise
        out.warn(str(e))
        return
    if out.json_mode:
        out.json([c.to_json() for c in written])
    elif not written:
        last = stored_checkpoints(store)[-1]
        out.line(f"nothing appended since checkpoint #{last.sequence} ({last.sealed_time}): it still covers every log")
    else:
        numbers = f"#{written[0].sequence}" + (f"–#{written[-1].sequence}" if len(written) > 1 else "")
        out.line(f"sealed checkpoint {numbers} at {written[-1].sealed_time}: {sum(len(c.heads) for c in written)} "
                 f"logs changed, root {written[-1].root[:16]}…, key id {written[-1].key_id}")
    try:
        out.stream.flush()  # a worker's log shows each seal as it happens
    except (OSError, ValueError):
        pass


def _export(store: Any, path: str, out: Output) -> None:
    from runtime.operations.seal import export_lines

    lines = list(export_lines(store))
    if path == "-":
        sys.stdout.writelines(lines)
        return
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.writelines(lines)
    except OSError as e:
        raise CliError(f"Cannot write {path}: {e.strerror or e}.") from None
    out.note(f"exported {plural(len(lines), 'checkpoint')} to {path}")
