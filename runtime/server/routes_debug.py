"""ADK's debug trace of a session, GET /dev/apps/{app}/debug/trace/session/{session_id}.

ADK builds it from OpenTelemetry spans kept in the server's memory, so it is lost on restart and
differs between processes. Here it is read from the log: one `invocation` span per invocation,
with an `agent_run [author]` or `execute_tool [name]` child per event, in ADK web's span shape
(times in nanoseconds). The path names no user, so the session is looked up among the users the
caller may act for (all of them for an operator); `?user_id=` narrows it."""

from __future__ import annotations

import hashlib
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from domain.errors import SessionNotFoundError
from runtime.server import access
from runtime.server.http import respond


def _id(text: str, bits: int) -> int:
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[: bits // 8], "big")


async def session_trace(request: Request) -> Response:
    app_name, session_id = access.path(request, "app_name"), access.path(request, "session_id")
    services = access.for_app(request, app_name)
    caller = access.caller(request)
    wanted = request.query_params.get("user_id")
    if wanted is not None:
        caller.check_user(wanted)
    rows = await services.store.call(services.reader.sessions, app_name, wanted)
    row = next((r for r in rows if r.session_id == session_id and not r.deleted
                and (caller.operator or r.user_id in caller.users)), None)
    if row is None:
        raise SessionNotFoundError(app_name, wanted or "?", session_id)
    session = await services.sessions.get_session(app_name=app_name, user_id=row.user_id, session_id=session_id)
    return respond(spans(session.events, session_id) if session else [])


def spans(events: list[Any], session_id: str) -> list[dict[str, Any]]:
    by_invocation: dict[str, list[Any]] = {}
    for event in events:
        by_invocation.setdefault(event.invocation_id, []).append(event)
    out = []
    for invocation_id, group in by_invocation.items():
        trace_id, root_id = _id(invocation_id, 128), _id("invocation:" + invocation_id, 64)
        ns = [int(e.timestamp * 1e9) for e in group]
        out.append(_span("invocation", ns[0], ns[-1], trace_id, root_id, None, {
            "gcp.vertex.agent.invocation_id": invocation_id, "gcp.vertex.agent.session_id": session_id,
        }))
        for event, at in zip(group, ns):
            responses = event.get_function_responses()
            name = f"execute_tool [{responses[0].name}]" if responses else f"agent_run [{event.author}]"
            out.append(_span(name, at, at, trace_id, _id(event.id, 64), root_id, {
                "gcp.vertex.agent.event_id": event.id, "gcp.vertex.agent.invocation_id": invocation_id,
                "gcp.vertex.agent.session_id": session_id, "author": event.author,
            }))
    return out


def _span(name: str, start: int, end: int, trace_id: int, span_id: int, parent: Any, attributes: dict) -> dict:
    return {"name": name, "start_time": start, "end_time": end, "trace_id": trace_id, "span_id": span_id,
            "parent_span_id": parent, "attributes": attributes, "logs": []}


ROUTES = [Route("/dev/apps/{app_name}/debug/trace/session/{session_id}", session_trace, methods=["GET"])]
