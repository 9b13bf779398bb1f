"""`chronicle traces`: a session's OpenTelemetry spans, folded from its log (runtime.telemetry.after):
printed, as JSON, or sent to an OTLP/HTTP receiver. Works for any past session, those recorded
before tracing was switched on included."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any, Callable

from tools.cli.commands import summary
from tools.cli.commands.common import add_session_arguments, find_session, open_store_for
from tools.cli.output import Output

if TYPE_CHECKING:
    from runtime.telemetry.after import TraceSpan


def register(sub: Any, common: Callable[..., argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "traces",
        parents=[common()],
        help=summary("traces"),
        description="Fold a session's log into the spans a live run reports (invoke_agent, the model "
        "calls, execute_tool; see docs/traces.md), one trace per invocation. Print them, or send them "
        "to an OpenTelemetry collector with --otlp (needs `pip install 'chronicle[otel]'`).",
    )
    add_session_arguments(p)
    p.add_argument("--otlp", metavar="URL", help="send the spans to this OTLP/HTTP receiver "
                   "(e.g. http://localhost:4318; /v1/traces is added to a URL without a path)")
    p.add_argument("--service-name", default="chronicle", help="the service.name the exported spans carry")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, out: Output) -> int:
    from runtime.telemetry.after import session_spans

    store = open_store_for(args)
    try:
        row = find_session(store, args.session, args.app, args.user)
        spans = session_spans(store, row.app_name, row.user_id, row.session_id)
    finally:
        store.close()
    if args.otlp:
        from runtime.telemetry.otlp import export_spans, traces_endpoint

        export_spans(spans, args.otlp, service_name=args.service_name)
        if out.json_mode:
            out.json({"exported": len(spans), "endpoint": traces_endpoint(args.otlp)})
        else:
            out.line(f"Sent {len(spans)} spans to {traces_endpoint(args.otlp)}.")
        return 0
    if out.json_mode:
        out.json({"spans": [_json(span) for span in spans]})
        return 0
    render(out, spans)
    return 0


def _json(span: TraceSpan) -> dict[str, Any]:
    return {**span.to_json(), "trace_id": span.trace_id, "error": span.error}


def render(out: Output, spans: list[TraceSpan]) -> None:
    """A waterfall per invocation: each span indented under its parent, with its duration."""
    children: dict[Any, list[TraceSpan]] = {}
    for span in spans:
        children.setdefault(span.parent_span_id, []).append(span)

    def show(span: TraceSpan, depth: int) -> None:
        ms = (span.end_time_unix_nano - span.start_time_unix_nano) / 1e6
        error = span.attributes.get("error.type")
        mark = out.style(f"  error {error}", "red") if span.error else ""
        out.line(f"{'  ' * depth}{span.name}  {ms:.1f} ms{mark}")
        for child in sorted(children.get(span.span_id, []), key=lambda s: s.start_time_unix_nano):
            show(child, depth + 1)

    if not spans:
        out.note("No spans: the session has no agent turns.")
    for root in children.get(None, []):
        out.line(out.style(f"invocation {root.attributes.get('chronicle.invocation.id')}", "bold"))
        show(root, 1)
