"""`chronicle demo`: run a real agent conversation into the store, then show what was recorded."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any, Callable

from tools.cli.commands import summary
from tools.cli.commands.common import find_session, open_store_for, run_async, store_url
from tools.cli.output import Output, short

if TYPE_CHECKING:
    from domain.events import Event


def register(sub: Any, common: Callable[..., argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "demo",
        parents=[common()],
        help=summary("demo"),
        description="Run a concierge agent through three turns with the Runner: it calls a tool that "
        "changes session and user: state and saves an artifact. The conversation is recorded in the "
        "store (created if missing), then its timeline and state are printed.",
        epilog="The model is scripted (no network) unless --model names a Gemini model and "
        "GOOGLE_API_KEY is set, e.g. --model gemini-2.5-flash.",
    )
    p.add_argument("--app", default="demo", help="app name (default: demo)")
    p.add_argument("--user", default="ann", help="user id (default: ann)")
    p.add_argument("--session", help="session id (default: demo-<random>)")
    p.add_argument("--model", help="scripted (default) or a Gemini model name such as gemini-2.5-flash")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, out: Output) -> int:
    from runtime.operations.history import load_history
    from tools.cli.commands.history import render
    from tools.demo import model_for, run_demo

    model_for(args.model)  # a missing API key is said before any store is made
    store = open_store_for(args, must_exist=False)
    try:
        printer = (lambda e: None) if out.json_mode else (lambda e: _print_event(out, e))
        result = run_async(run_demo(
            store, app_name=args.app, user_id=args.user, session_id=args.session, model=args.model,
            on_event=printer,
        ))
        if out.json_mode:
            out.json({
                "app_name": result.app_name, "user_id": result.user_id, "session_id": result.session_id,
                "events": len(result.events), "state": result.state, "artifacts": result.artifacts,
                "store": store_url(args),
            })
            return 0
        row = find_session(store, result.session_id, result.app_name, result.user_id)
        out.line()
        out.line(out.style(f"Recorded in {store_url(args)} — the timeline as `chronicle history` shows it:", "bold"))
        out.line()
        render(out, [load_history(store, row)])
    finally:
        store.close()
    out.line()
    out.line(f"state now: {short(result.state, out.width - 11)}")
    out.line(f"artifacts: {', '.join(result.artifacts) or '–'}")
    sid, where = result.session_id, "" if not getattr(args, "store", None) else f" --store {args.store}"
    out.note(
        "\nNext, try:\n"
        f"  chronicle{where} history {sid}\n"
        f"  chronicle{where} state-at {sid} v3\n"
        f"  chronicle{where} diff {sid} v1 latest\n"
        f"  chronicle{where} rewind {sid} --before <invocation id from the history>\n"
        f"  chronicle{where} export {sid} --format markdown\n"
        f"  chronicle{where} verify"
    )
    return 0


def _print_event(out: Output, event: Event) -> None:
    who = out.style(f"{event.author:>10}", "cyan" if event.author == "user" else "green")
    for call in event.get_function_calls():
        out.line(f"{who} → {call.name}({short(call.args or {}, 60)})")
    for response in event.get_function_responses():
        out.line(f"{who} ← {response.name} {short(response.response or {}, 70)}")
    if event.text():
        out.line(f"{who}: {event.text()}")
