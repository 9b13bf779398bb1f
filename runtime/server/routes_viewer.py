"""Read routes the web viewer needs beyond the session routes (snake_case, as Chronicle's own):

    GET /chronicle/sessions?app=&user=&session=&q=&since=YYYY-MM-DD&until=YYYY-MM-DD&status=&limit=&after=
        sessions with their status (waiting for a person, rewound, forked from, forked into,
        deleted), newest first, a page at a time (``after``: the X-Next-Cursor of the previous
        page). An operator sees every user's; a user token sees its own users'.
    GET /chronicle/purges                     the purge audit log's records (operator only)
    GET /apps/{app}/analytics/summary         the app's analytics with latency percentiles
                                              worked out (operator only)
    GET /chronicle/apps/{app}/users/{user}/sessions/{id}/workflow?invocation=
                                              a workflow run's graph, with the path it took
                                              (the latest run unless an invocation is named)
"""

from __future__ import annotations

import datetime as _dt
from typing import Any, Optional

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from domain.errors import InvalidArgumentError
from domain.purge_log import PURGE_LOG_ID, PurgeLog
from runtime.server import access
from runtime.server.http import dump, respond
from runtime.sessions.verify import decode_payload

QUANTILES = (0.5, 0.9, 0.95, 0.99)


def _day(text: Optional[str], name: str) -> Optional[float]:
    if not text:
        return None
    try:
        day = _dt.date.fromisoformat(text)
    except ValueError:
        raise InvalidArgumentError(f"{name} must be a date such as 2026-01-31, got {text!r}.") from None
    return _dt.datetime(day.year, day.month, day.day, tzinfo=_dt.timezone.utc).timestamp()


async def search_sessions(request: Request) -> Response:
    """A page of the sessions read model (runtime.read_models.sessions): no session's log is read.
    The next page's cursor comes in the X-Next-Cursor header (absent on the last page)."""
    from runtime.read_models.sessions import SessionIndex, SessionQuery

    params = request.query_params
    caller = access.caller(request)
    app_name, user_id = params.get("app") or None, params.get("user") or None
    if user_id is not None:
        caller.check_user(user_id)
    if app_name is not None:
        await access.for_stored(request, app_name)
    try:
        limit = int(params.get("limit", "200"))
    except ValueError:
        raise InvalidArgumentError("limit must be a number.") from None
    query = SessionQuery(
        app_name=app_name, user_id=user_id, session_id=params.get("session") or None,
        users=None if caller.operator else set(caller.users),
        text=params.get("q") or "", since=_day(params.get("since"), "since"),
        until=_day(params.get("until"), "until"), status=params.get("status") or None, limit=limit,
        after=params.get("after") or None,
    )
    services = access.services(request)
    found, cursor = await services.store.call(SessionIndex.of(services.store).page, query)
    response = respond(found)
    if cursor is not None:
        response.headers["X-Next-Cursor"] = cursor
    return response


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
        found = follower.find(app_name)  # this app's view alone, not every app's decoded
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
    from runtime.server.workflow_graph import drawable

    app_name, user_id = access.path(request, "app_name"), access.path(request, "user_id")
    services = await access.for_stored(request, app_name, user_id)
    session = await services.session(app_name, user_id, access.path(request, "session_id"))
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
        root = await services.root_agent(app_name)
        graph = getattr(root, "graph", None)
    return respond(dump({"invocations": invocations, "invocation_id": invocation,
                         **drawable(list(runs.invocations[invocation].values()), graph)}))


ROUTES = [
    Route("/chronicle/sessions", search_sessions, methods=["GET"]),
    Route("/chronicle/purges", purges, methods=["GET"]),
    Route("/apps/{app_name}/analytics/summary", analytics_summary, methods=["GET"]),
    Route("/chronicle/apps/{app_name}/users/{user_id}/sessions/{session_id}/workflow", workflow, methods=["GET"]),
]
