"""`chronicle replay`: play a recorded session back, event by event, as it happened.

Without ``--agent`` the log is read back: every event the session shows (rewound ones too with
``--include-rewound``), in order, optionally at the pace they were recorded. With ``--agent
module:attribute`` the recorded user turns are run again through that agent by the Runner's
``replay``, to compare a changed agent with what happened.
"""

from __future__ import annotations

import argparse
import importlib
import time
from typing import TYPE_CHECKING, Any, Callable

from tools.cli.commands import summary
from tools.cli.commands.common import CliError, add_session_arguments, find_session, open_store_for, run_async
from tools.cli.output import Output, short, utc

if TYPE_CHECKING:
    from domain.events import Event


def register(sub: Any, common: Callable[..., argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "replay",
        parents=[common()],
        help=summary("replay"),
        description=__doc__.split("\n\n", 1)[1],
    )
    add_session_arguments(p)
    pace = p.add_mutually_exclusive_group()
    pace.add_argument("--realtime", action="store_true", help="wait between events as long as they took")
    pace.add_argument("--speed", type=float, default=0.0, metavar="X",
                      help="replay X times faster than recorded (default: no waiting)")
    p.add_argument("--include-rewound", action="store_true", help="also play the events a rewind hid")
    p.add_argument("--agent", metavar="MODULE:ATTR",
                   help="re-run the user turns through this agent (or App, or a function returning one) in a fork, "
                   "and report per turn where answers and tool calls differ; `demo` is the demo's agent")
    p.add_argument("--from-invocation", metavar="INV", help="with --agent: keep the history before INV, replay from it")
    p.add_argument("--new-id", metavar="ID", help="with --agent: the id of the session the replay runs in")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, out: Output) -> int:
    store = open_store_for(args)
    try:
        row = find_session(store, args.session, args.app, args.user)
        if args.agent:
            return _rerun(args, out, store, row)
        from runtime.sessions import LogSessionService

        service = LogSessionService(store)
        session = run_async(service.get_session(
            app_name=row.app_name, user_id=row.user_id, session_id=row.session_id,
        ))
        if session is None:
            raise CliError(f"Session {row.session_id!r} was deleted; read its log with `chronicle history`.")
    finally:
        store.close()
    speed = 1.0 if args.realtime else args.speed
    previous: float | None = None
    for event in session.events if args.include_rewound else session.filter_events():
        if speed > 0 and previous is not None:
            time.sleep(min(max(event.timestamp - previous, 0.0) / speed, 30.0))
        previous = event.timestamp
        if out.json_mode:
            out.line(event.model_dump_json(exclude_none=True))  # one event a line, as a stream
        else:
            show_event(out, event)
        out.stream.flush()
    return 0


def show_event(out: Output, event: Event) -> None:
    """One event as a conversation line (or several: calls, results, state)."""
    who = out.style(f"{event.author:>12}", "cyan" if event.author == "user" else "green")
    when = out.style(utc(event.timestamp), "grey")
    lines = []
    if event.text():
        lines.append(event.text())
    lines += [f"→ {c.name}({short(c.args or {}, 80)})" for c in event.get_function_calls()]
    lines += [f"← {r.name} {short(r.response or {}, 80)}" for r in event.get_function_responses()]
    actions = event.actions
    if actions.rewind_before_invocation_id:
        lines.append(f"⟲ rewind to before invocation {actions.rewind_before_invocation_id}")
    if actions.state_delta:
        lines.append("state " + short(actions.state_delta, 100))
    if actions.artifact_delta:
        lines.append("artifact " + ", ".join(f"{k} v{v}" for k, v in actions.artifact_delta.items()))
    if event.error_code:
        lines.append(f"error {event.error_code}: {event.error_message or ''}")
    for i, line in enumerate(lines or ["(no content)"]):
        out.line(f"{when} {who}  {line}" if i == 0 else f"{' ' * 19} {' ' * 12}  {line}")


def load_agent(spec: str) -> Any:
    """``demo`` (the demo's concierge), or MODULE:ATTRIBUTE naming an agent, an App, or a function
    that returns one (called with no arguments)."""
    from runtime.agents import BaseAgent
    from runtime.app import App

    if spec == "demo":
        from tools.demo import demo_agent

        return demo_agent()
    module_name, _, attribute = spec.partition(":")
    try:
        value = getattr(importlib.import_module(module_name), attribute or "root_agent")
    except (ImportError, AttributeError) as e:
        raise CliError(f"Cannot load the agent {spec!r}: {e}. Give MODULE:ATTRIBUTE, e.g. my_app.agent:root_agent.") from None
    if callable(value) and not isinstance(value, (BaseAgent, App)):
        value = value()
    if not isinstance(value, (BaseAgent, App)):
        raise CliError(f"{spec!r} is a {type(value).__name__}, not an agent or an App.")
    return value


def _rerun(args: argparse.Namespace, out: Output, store: Any, row: Any) -> int:
    from runtime.artifacts import LogArtifactService
    from runtime.memory import LogMemoryService
    from runtime.runner import runner_for
    from runtime.sessions import LogSessionService

    agent = load_agent(args.agent)
    artifacts = LogArtifactService(store)
    runner = runner_for(agent, app_name=row.app_name, session_service=LogSessionService(store),
                        artifact_service=artifacts, memory_service=LogMemoryService(store))

    async def go() -> Any:
        try:
            return await runner.replay(user_id=row.user_id, session_id=row.session_id,
                                       new_session_id=args.new_id, from_invocation_id=args.from_invocation)
        finally:
            await runner.close()
            await artifacts.close()

    report = run_async(go())
    if out.json_mode:
        out.json(report.to_json())
        return 0
    for line in report.format().splitlines():
        style = ("yellow",) if " differs:" in line else ("red",) if line.startswith("    -") else \
            ("green",) if line.startswith("    +") else ()
        out.line(out.style(line, *style))
    out.note(f"the replay is session {report.session_id}: see it with `chronicle history {report.session_id}`")
    return 0
