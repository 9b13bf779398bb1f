"""`chronicle run AGENT_DIR`: chat with an app in the terminal, as `adk run` does.

The app is loaded as `chronicle serve` loads it (runtime.server.app_loader); the conversation is
recorded in the store like any other, so `chronicle history SESSION` shows it afterwards and
`--session ID` carries on an earlier one. Lines are read until `exit` or end of input."""

from __future__ import annotations

import argparse
import os
import sys
import uuid
from typing import Any, Callable

from tools.cli.commands import summary
from tools.cli.commands.common import CliError, run_async, store_url


def register(sub: Any, common: Callable[..., argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "run",
        parents=[common(json_flag=False)],
        help=summary("run"),
        description="Chat with the app in AGENT_DIR (agent.py, __init__.py or root_agent.yaml) in the "
        "terminal; type exit (or end the input) to stop. The conversation is recorded in the store.",
    )
    p.add_argument("agent_dir", metavar="AGENT_DIR", help="the app's folder")
    p.add_argument("--user", default="user", help="the user id (default: user)")
    p.add_argument("--session", help="carry on this session (default: a new one)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, out: Any) -> int:
    folder = os.path.abspath(args.agent_dir.rstrip("/"))
    if not os.path.isdir(folder):
        raise CliError(f"{args.agent_dir!r} is not a folder; give the app's folder (holding agent.py or root_agent.yaml).")
    return run_async(_chat(os.path.dirname(folder), os.path.basename(folder), store_url(args), args.user, args.session))


async def _chat(agents_dir: str, app_name: str, url: str, user_id: str, session_id: str | None) -> int:
    from google.genai import types

    from runtime.server.config import ServerConfig
    from runtime.server.services import Services

    services = Services(ServerConfig(agents_dir=agents_dir, store_url=url))
    try:
        runner = await services.runner(app_name)
        session = None
        if session_id:
            session = await services.sessions.get_session(app_name=app_name, user_id=user_id, session_id=session_id)
        if session is None:
            session = await services.sessions.create_session(
                app_name=app_name, user_id=user_id, session_id=session_id or f"run-{uuid.uuid4().hex[:8]}"
            )
        print(f"Running app {app_name}, session {session.id}; type exit to stop.", file=sys.stderr)
        while True:
            print(f"[{user_id}]: ", end="", flush=True)
            line = sys.stdin.readline()
            if not line or line.strip() == "exit":
                print()
                return 0
            if not line.strip():
                continue
            message = types.Content(role="user", parts=[types.Part(text=line.strip())])
            async for event in runner.run_async(user_id=user_id, session_id=session.id, new_message=message):
                if event.text() and not event.partial:
                    print(f"[{event.author}]: {event.text()}")
    finally:
        await services.close()
