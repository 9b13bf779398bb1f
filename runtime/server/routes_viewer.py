"""Read routes the web viewer needs beyond the session routes (snake_case, as Chronicle's own):

    GET /chronicle/sessions?app=&user=&q=&since=YYYY-MM-DD&until=YYYY-MM-DD&status=&limit=
        sessions with their status (waiting for a person, rewound, forked from, forked into,
        deleted), newest first. An operator sees every user's; a user token sees its own users'.
    GET /chronicle/purges                     the purge audit log's records (operator only)
    GET /apps/{app}/analytics/summary         the app's analytics with latency percentiles
                                              worked out (operator only)
    GET /chronicle/apps/{app}/users/{user}/sessions/{id}/workflow?invocation=
                                              a workflow run's graph, with the path it took
                                              (the latest run unless an invocation is named)
"""

from __future__ import annotations

import asyncio
import datetime as _dt
import json
from typing import Any, Optional

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from domain.errors import InvalidArgumentError
from domain.purge_log import PURGE_LOG_ID, PurgeLog
from runtime.server import access
from runtime.server.http import dump, respond
from runtime.sessions.verify import decode_payload

STATUSES = ("waiting", "rewound", "forked", "forked_into", "deleted")
QUANTILES = (0.5, 0.9, 0.95, 0.99)


def _day(text: Optional[str], name: str) -> Optional[float]:
    if not text:
        return None
    try:
        day = _dt.date.fromisoformat(text)
    except ValueError:
        raise InvalidArgumentError(f"{name} must be a date such as 2026-01-31, got {text!r}.") from None
    return _dt.datetime(day.year, day.month, day.day, tzinfo=_dt.timezone.utc).timestamp()


def _matches(timeline: Any, session_id: str, query: str) -> Optional[str]:
    """The first text of the session that holds `query` (case-insensitive), or None."""
    if query in session_id.lower():
        return session_id
    for inv in timeline.invocations:
        for step in inv.steps:
            texts = [step.text, *(f"{c.name}({json.dumps(c.args, default=str)})" for c in step.tool_calls),
                     *(json.dumps(r.response, default=str) for r in step.tool_results)]
            for text in texts:
                if text and query in text.lower():
                    return text[:160]
    return None


def _summary(services: Any, row: Any) -> tuple[dict[str, Any], Any]:
    """What the search answers of one session, and its timeline (for the text search)."""
    timeline = services.time_travel.history((row.app_name, row.user_id, row.session_id))
    pending = [] if row.deleted else list(services.reader.open_requests(row).values())
    return {
        "app_name": row.app_name, "user_id": row.user_id, "session_id": row.session_id,
        "created": row.created_time, "updated": row.last_update_time, "version": row.version,
        "events": timeline.events, "invocations": len(timeline.invocations),
        "deleted": row.deleted, "rewinds": len(timeline.rewinds), "pending": len(pending),
        "forked_from": timeline.forked_from, "forks": [],
        "first_text": next((s.text for inv in timeline.invocations for s in inv.steps if s.text), "")[:160],
    }, timeline


def _statuses(found: dict[str, Any]) -> list[str]:
    return [name for name, on in (
        ("waiting", found["pending"]), ("rewound", found["rewinds"]), ("forked", found["forked_from"]),
        ("forked_into", found["forks"]), ("deleted", found["deleted"]),
    ) if on]


async def search_sessions(request: Request) -> Response:
    params = request.query_params
    caller = access.caller(request)
    app_name, user_id = params.get("app") or None, params.get("user") or None
    if user_id is not None:
        caller.check_user(user_id)
    if app_name is not None:
        await access.for_stored(request, app_name)
    query = (params.get("q") or "").strip().lower()
    since, until = _day(params.get("since"), "since"), _day(params.get("until"), "until")
    status = params.get("status") or None
    if status is not None and status not in STATUSES:
        raise InvalidArgumentError(f"status must be one of {', '.join(STATUSES)}, got {status!r}.")
    try:
        limit = int(params.get("limit", "200"))
    except ValueError:
        raise InvalidArgumentError("limit must be a number.") from None
    services = access.services(request)

    def found() -> list[dict[str, Any]]:
        rows = [r for r in services.reader.sessions(app_name, user_id)
                if caller.operator or r.user_id in caller.users]
        summaries = [_summary(services, r) for r in rows]
        by_id = {(s["app_name"], s["user_id"], s["session_id"]): s for s, _ in summaries}
        for s, _ in summaries:  # forks are linked both ways
            source = (s["forked_from"] or {}).get("source_session_id")
            if source and (s["app_name"], s["user_id"], source) in by_id:
                by_id[(s["app_name"], s["user_id"], source)]["forks"].append(s["session_id"])
        out = []
        for s, timeline in summaries:
            if since is not None and s["updated"] < since:
                continue
            if until is not None and s["created"] >= until + 86400:
                continue
            s["status"] = _statuses(s)
            if status is not None and status not in s["status"]:
                continue
            if query:
                s["match"] = _matches(timeline, s["session_id"].lower(), query)
                if s["match"] is None:
                    continue
            out.append(s)
        return sorted(out, key=lambda s: -s["updated"])[:limit]

    return respond(await services.store.call(found))


async def purges(request: Request) -> Response:
    access.caller(request).check_operator("The purge record")
    services = access.services(request)

    def records() -> list[dict[str, Any]]:
        out = []
        for version, topic, state in services.reader.rows(PURGE_LOG_ID):
            if topic == PurgeLog.Purged.TOPIC:
                payload = decode_payload(services.store, state)
                out.append({"version": version, **{k: payload.get(k) for k in
                            ("by", "reason", "scope", "sessions", "counts", "purged_time")}})
        return out

    return respond(await services.store.call(records))


def _latency(latency: Any) -> dict[str, Any]:
    return {"count": latency.count, "mean_ms": latency.mean_ms, "max_ms": latency.max_ms,
            **{f"p{round(q * 100)}_ms": latency.quantile_ms(q) for q in QUANTILES}}


async def analytics_summary(request: Request) -> Response:
    app_name = access.path(request, "app_name")
    access.caller(request).check_operator("Analytics of a whole app")
    services = await access.for_stored(request, app_name)

    def view() -> dict[str, Any]:
        follower = services.analytics
        follower.catch_up()
        found = next((v for (_, key), v in follower.views().items() if key == app_name), None)
        if found is None:
            return {"app_name": app_name, "totals": {}, "days": {}, "users": {}, "agents": {}, "tools": {},
                    "invocation_latency": None}
        return {
            "app_name": app_name,
            "totals": found.totals.to_json(),
            "days": {k: v.to_json() for k, v in sorted(found.days.items())},
            "users": {k: v.to_json() for k, v in found.users.items()},
            "agents": {k: {**{n: c for n, c in a.to_json().items() if n != "llm_latency"},
                           "llm_latency": _latency(a.llm_latency)} for k, a in found.agents.items()},
            "tools": {k: {"calls": t.calls, "errors": t.errors, "latency": _latency(t.latency)}
                      for k, t in found.tools.items()},
            "invocation_latency": _latency(found.invocation_latency),
            "rewinds": found.rewinds, "forks": found.forks, "deleted_sessions": found.deleted_sessions,
        }

    return respond(dump(await services.store.call(view)))


async def workflow(request: Request) -> Response:
    from projections.workflow import fold_all
    from runtime.server.routes_basic import _root_agent
    from runtime.server.routes_sessions import _session
    from runtime.server.workflow_graph import drawable

    app_name, user_id = access.path(request, "app_name"), access.path(request, "user_id")
    services = await access.for_stored(request, app_name, user_id)
    session = await _session(services, app_name, user_id, access.path(request, "session_id"))
    runs = fold_all(session.log_events())  # log-only facts too (domain.log_only)
    invocations = list(runs.invocations)
    if not invocations:
        return respond({"invocations": [], "invocation_id": None, "nodes": [], "edges": [], "whole_graph": False})
    invocation = request.query_params.get("invocation") or invocations[-1]
    if invocation not in runs.invocations:
        raise InvalidArgumentError(f"Invocation {invocation!r} ran no workflow in this session; "
                                   f"workflow invocations: {', '.join(invocations)}.")
    graph = None
    if services.serves(app_name):  # the workflow's whole graph, when its app is here to say it
        root = _root_agent(await asyncio.to_thread(services.loader.load, app_name))
        graph = getattr(root, "graph", None)
    return respond(dump({"invocations": invocations, "invocation_id": invocation,
                         **drawable(list(runs.invocations[invocation].values()), graph)}))


ROUTES = [
    Route("/chronicle/sessions", search_sessions, methods=["GET"]),
    Route("/chronicle/purges", purges, methods=["GET"]),
    Route("/apps/{app_name}/analytics/summary", analytics_summary, methods=["GET"]),
    Route("/chronicle/apps/{app_name}/users/{user_id}/sessions/{session_id}/workflow", workflow, methods=["GET"]),
]
