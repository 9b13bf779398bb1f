"""Runs one case of tests/mcp_auth_app.py on one side and prints what a user and the server saw.

    python -m tests.mcp_auth_side CASE [CASE ...] --side adk --url http://127.0.0.1:PORT/mcp
    python -m tests.mcp_auth_side CASE --side chronicle --url ... --store sqlite:///x.db

It prints {case: what was seen}. The tests run Chronicle's side in their own process (``run``).

Per turn: the events (as tools/parity/transcript.py shows them: ids, times, a sign-in's state and
PKCE challenge, random by design, are placeholders; a PKCE request's code verifier, which only
google-adk writes into the request, is left out) and, for every JSON-RPC message the MCP server (tests/mcp_server.py) got in
that turn, its method and credential headers. Then every model request (tools/parity/requests.py's
snapshot) and the final state. On Chronicle's side the session and credential services are the
store's (`--store`), and each turn runs on a Runner of its own unless the store is `memory://`:
a pause in the log is answered by whichever process reads it. The answer to a credential
request is the requested AuthConfig with the case's credential as its exchangedAuthCredential.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import re
import sys
import urllib.request
from pathlib import Path
from urllib.parse import parse_qs, urlparse
from typing import Any

from tools.parity.transcript import REWRITE, _event, _plain

APP = Path(__file__).with_name("mcp_auth_app.py")
# A sign-in's state and PKCE challenge: random by design.
RANDOM = re.compile(r"(state|code_challenge)(=|\": \")[A-Za-z0-9_-]{30,43}")
USER, SESSION = "ann", "s1"


def without_verifier(row: dict[str, Any]) -> dict[str, Any]:
    """A PKCE sign-in request without its code verifier, which google-adk sends the client in the
    request and Chronicle keeps in the credential service instead (a secret stays out of the log)."""
    return {k: v for k, v in row.items() if k != "codeVerifier"}


def load_app(side: str) -> dict[str, Any]:
    source = APP.read_text()
    if side == "chronicle":
        source = REWRITE.sub("runtime", source)
    namespace: dict[str, Any] = {"__name__": "mcp_auth_app"}
    exec(compile(source, str(APP), "exec"), namespace)
    return namespace


def seen(url: str) -> list[dict[str, str]]:
    """What the server recorded since it was last asked, emptied."""
    base = url.rsplit("/", 1)[0]
    with urllib.request.urlopen(urllib.request.Request(f"{base}/seen", method="DELETE"), timeout=10) as answer:
        return json.loads(answer.read())


def answer(turn: dict[str, Any], events: list, types: Any) -> Any:
    """The user's message answering the open adk_request_credential call: with the turn's
    credential, or the requested one with the redirect URI a sign-in returned."""
    call = next(c for e in reversed(events) for c in e.get_function_calls() if c.name == "adk_request_credential")
    config = json.loads(json.dumps(call.args["authConfig"]))
    if "signed_in" in turn:
        oauth2 = config["exchangedAuthCredential"]["oauth2"]
        challenge = parse_qs(urlparse(oauth2["authUri"]).query).get("code_challenge")
        code = turn["signed_in"] + (f".{challenge[0]}" if challenge else "")  # PKCE: the server's check
        oauth2["authResponseUri"] = f"{oauth2['redirectUri']}?code={code}&state={oauth2['state']}"
    else:
        config["exchangedAuthCredential"] = turn["credential"]
    part = types.Part(function_response=types.FunctionResponse(id=call.id, name=call.name, response=config))
    return types.Content(role="user", parts=[part])


def services(side: str, store: str) -> dict[str, Any]:
    if side == "adk":
        from google.adk.auth.credential_service.in_memory_credential_service import InMemoryCredentialService
        from google.adk.sessions import InMemorySessionService

        return dict(session_service=InMemorySessionService(), credential_service=InMemoryCredentialService())
    from runtime.auth import credential_service_from_url
    from runtime.sessions.service import session_service_from_url

    return dict(session_service=session_service_from_url(store), credential_service=credential_service_from_url(store))


async def run(case: str, side: str, url: str, store: str) -> dict[str, Any]:
    from google.genai import types

    app = load_app(side)
    runners = importlib.import_module(("google.adk" if side == "adk" else "runtime") + ".runners")
    bank = app["app"](url, case)
    agent = bank.root_agent
    fresh_runner_per_turn = side == "chronicle" and not store.startswith("memory")
    kept = services(side, store)
    await kept["session_service"].create_session(app_name="bank", user_id=USER, session_id=SESSION)
    seen(url)  # what an earlier run left
    invocations: dict[str, int] = {}
    events: list = []
    turns = []
    runner = None
    for turn in app["CASES"][case]["turns"]:
        if runner is None or fresh_runner_per_turn:
            if runner is not None:  # new services on the same store; the agent's toolset (and its
                kept = services(side, store)  # MCP session) is the app's, as in a long-lived process
            runner = runners.Runner(app=bank, **kept)
        if isinstance(turn, str):
            message = types.Content(role="user", parts=[types.Part(text=turn)])
        else:
            message = answer(turn, events, types)
        rows = []
        async for event in runner.run_async(user_id=USER, session_id=SESSION, new_message=message):
            events.append(event)
            rows.append({**_event(event, invocations), "role": event.content.role if event.content else None})
        rows = json.loads(RANDOM.sub(r"\1\2<random>", json.dumps(rows)), object_hook=without_verifier)
        turns.append({"events": rows, "server_saw": seen(url)})
    session = await runner.session_service.get_session(app_name="bank", user_id=USER, session_id=SESSION)
    await runner.close()
    return {
        "turns": turns,
        "model_requests": agent.model.requests,
        "state": _plain({k: session.state[k] for k in sorted(session.state)}),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="+")
    parser.add_argument("--side", choices=["adk", "chronicle"], required=True)
    parser.add_argument("--url", required=True)
    parser.add_argument("--store", default="memory://")
    args = parser.parse_args(argv)
    # One process for several cases: starting google-adk costs more than a case.
    ran = {case: asyncio.run(run(case, args.side, args.url, args.store)) for case in args.cases}
    print(json.dumps(ran, indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
