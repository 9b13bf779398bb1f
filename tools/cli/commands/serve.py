"""`chronicle serve AGENTS_DIR`: google-adk's HTTP API (and Chronicle's own routes) over a store,
under uvicorn. See docs/server.md."""

from __future__ import annotations

import argparse
import errno
import ipaddress
import os
import socket
import sys
from typing import Any, Callable

from tools.cli.commands import summary
from tools.cli.commands.common import CliError, redact, store_url


def register(sub: Any, common: Callable[..., argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "serve",
        parents=[common(json_flag=False)],
        help=summary("serve"),
        description="Serve the apps in AGENTS_DIR (folders with agent.py, __init__.py or root_agent.yaml, as "
        "`adk api_server` finds them; none without AGENTS_DIR) over google-adk's HTTP API, with Chronicle's routes for rewind, fork, "
        "replay, history, state-at, diff, verify, analytics, export and pending requests. See docs/server.md.",
    )
    p.add_argument("agents_dir", metavar="AGENTS_DIR", nargs="?",
                   help="the folder of apps (or one app's folder); without it no app is served and the viewer "
                        "opens the store's sessions read-only")
    p.add_argument("--host", default="127.0.0.1", help="the address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="the port (default 8000)")
    p.add_argument("--workers", type=int, default=1, help="worker processes (default 1); they share the store")
    p.add_argument("--extra-plugins", "--extra_plugins", nargs="*", default=[], metavar="a.b.Plugin",
                   help="plugins by dotted name, added to every app (--extra_plugins is ADK's spelling)")
    p.add_argument("--tokens", metavar="FILE",
                   help='bearer tokens, a JSON file such as {"TOKEN": "user_id", "OPS_TOKEN": "*"} '
                        "(default: $CHRONICLE_SERVER_TOKENS, else no authentication)")
    p.add_argument("--authenticator", metavar="a.b.Class", help="a custom Authenticator class instead of tokens")
    p.add_argument("--allow-public-without-auth", action="store_true",
                   help="bind a non-loopback address without authentication (anyone reaching it acts as any user)")
    p.add_argument("--cors-origin", action="append", default=[], metavar="ORIGIN",
                   help="allow browser calls from this origin (repeatable; CORS is off by default)")
    p.add_argument("--max-body-bytes", type=int, default=10 * 1024 * 1024, help="largest request body (default 10 MiB)")
    p.add_argument("--max-run-events", type=int, default=1000, help="most events one /run may yield (default 1000)")
    p.add_argument("--auto-create-session", action="store_true", help="create a session a run names if it is missing")
    p.add_argument("--seal-key", metavar="FILE", help="seal the store with this key in the background (see `chronicle seal`)")
    p.add_argument("--seal-every", type=float, default=300.0, metavar="SECONDS",
                   help="with --seal-key: seconds between seals (default 300); a last seal when the server stops")
    p.add_argument("--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"])
    p.set_defaults(func=run)


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _address(host: str, port: int) -> str:
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def _check_port(host: str, port: int) -> None:
    """A port already taken is one line and exit 1 before anything starts (uvicorn's own failure
    would be a log and exit 3, which means the store cannot be opened)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            probe.bind((host, port))
        except OSError as e:
            reason = "is in use" if e.errno == errno.EADDRINUSE else f"cannot be bound ({e.strerror})"
            raise CliError(f"Port {port} on {host} {reason}: stop what holds it or pick another with --port.") from None


def _check_seal_key(args: argparse.Namespace) -> None:
    """A seal key that cannot sign is refused before the server starts, not in every worker."""
    from runtime.operations.seal import load_key

    if args.seal_every <= 0:
        raise CliError("--seal-every must be a number of seconds above 0.")
    if not load_key(args.seal_key).can_sign:
        raise CliError(f"{args.seal_key} is a public key: it verifies checkpoints but cannot seal. Give the private key.")


def run(args: argparse.Namespace, out: Any) -> int:
    import uvicorn

    from domain.errors import ChronicleError
    from runtime.server.app_loader import AppLoader
    from runtime.server.auth import authenticator_for
    from runtime.server.config import ServerConfig

    config = ServerConfig(
        agents_dir=os.path.abspath(args.agents_dir) if args.agents_dir else None, store_url=store_url(args), extra_plugins=list(args.extra_plugins),
        tokens_file=args.tokens, authenticator=args.authenticator, cors_origins=list(args.cors_origin),
        max_body_bytes=args.max_body_bytes, max_run_events=args.max_run_events,
        auto_create_session=args.auto_create_session,
        seal_key_file=os.path.abspath(args.seal_key) if args.seal_key else None, seal_every=args.seal_every,
    )
    if args.seal_key:
        _check_seal_key(args)
    if args.workers < 1:
        raise CliError("--workers must be 1 or more.")
    if config.store_url.startswith("memory:") and args.workers > 1:
        raise CliError("memory:// is private to one process; use sqlite:///path.db or postgresql://… with --workers.")
    try:
        apps = AppLoader(config.agents_dir).list_apps() if config.agents_dir else []
        authenticated = getattr(authenticator_for(config.tokens_file, config.tokens_env, config.authenticator),
                                "enabled", True)
    except (ChronicleError, OSError) as e:
        raise CliError(str(e)) from None
    if not authenticated and not _loopback(args.host) and not args.allow_public_without_auth:
        raise CliError(
            f"Refusing to serve {args.host} without authentication: anyone who reaches it could read and write "
            "every user's sessions. Give --tokens FILE (or $CHRONICLE_SERVER_TOKENS), bind 127.0.0.1, or pass "
            "--allow-public-without-auth if something in front of this server authenticates callers."
        )
    _check_port(args.host, args.port)
    if config.agents_dir:
        print(f"chronicle serve: apps {', '.join(apps) or '(none yet)'} from {config.agents_dir}", file=sys.stderr)
    else:
        print("chronicle serve: no AGENTS_DIR, so no app: the store's sessions open read-only", file=sys.stderr)
    print(f"chronicle serve: store {redact(config.store_url)}", file=sys.stderr)
    if authenticated:
        print("chronicle serve: bearer-token authentication on; callers reach only their own users' data",
              file=sys.stderr)
    elif _loopback(args.host):
        print("chronicle serve: NO AUTHENTICATION: serving loopback only; every local caller acts as any user",
              file=sys.stderr)
    else:
        print(f"chronicle serve: NO AUTHENTICATION on public address {args.host} "
              "(--allow-public-without-auth): every caller acts as any user", file=sys.stderr)
    if config.seal_key_file:
        print(f"chronicle serve: sealing the store every {args.seal_every:g} s with {args.seal_key}", file=sys.stderr)
    print(f"chronicle serve: viewer at {_address(args.host, args.port)}/ui", file=sys.stderr)
    os.environ.update(config.to_env())
    uvicorn.run(
        "runtime.server.app:app_from_env", factory=True, host=args.host, port=args.port, workers=args.workers,
        log_level=args.log_level,
    )
    return 0
