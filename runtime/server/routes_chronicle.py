"""Chronicle's own routes, what ADK's server lacks. Each is a thin call to a Python API that already
exists (the Runner, runtime.read_models.time_travel, runtime.operations, projections):

Under /apps/{app}/users/{user}/sessions/{session}:
    POST rewind   {"invocation_id"}                      -> the rewind's marker event
    POST fork     {"at_invocation_id"?, "new_session_id"?} -> the new session
    POST replay   {"from_invocation_id"?, "new_session_id"?, "agent"?} -> the report (runs the app's current
                  agent, or the agent of the app named by "agent", in a fork of the session)
    GET  history?limit=&before=|after=                   -> a page of the timeline (the newest events by
                                                            default), rewinds marked, and its window
    GET  state?event=ID | before=INV | after=INV | version=N | time=EPOCH -> state, app:/user: state, artifacts
    GET  diff?from_…=…&to_…=…  (the same keys, prefixed)  -> every change in between, and who wrote it
    GET  verify                                          -> the session's chains and derived rows checked
    GET  export?format=jsonl|markdown|adk                -> the log, a transcript, or ADK's session JSON
    GET  pending                                         -> requests waiting for a person (answer them with /run)
Under /chronicle/apps/{app}/users/{user}/sessions/{session}:
    GET  traces                                          -> {"spans": [...]}: the session's trace spans
Store-wide, operator only:
    GET  /chronicle/verify?app=&user=                    -> every chain and derived row checked
    GET  /apps/{app}/analytics                           -> the app's analytics view
    GET  /apps/{app}/pending                             -> every open request of the app
"""

from __future__ import annotations

import math

from typing import Any, Optional

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from domain.errors import InvalidArgumentError, SessionNotFoundError
from domain.session_log import session_log_id
from runtime.operations.history import History, load_history
from runtime.read_models import At
from runtime.read_models.time_travel import MISSING
from runtime.server import access
from runtime.server.http import dump, parse_body, respond
from runtime.server.routes_sessions import Body


class RewindRequest(Body):
    invocation_id: str


class ForkRequest(Body):
    at_invocation_id: Optional[str] = None
    new_session_id: Optional[str] = None


class ReplayRequest(Body):
    from_invocation_id: Optional[str] = None
    new_session_id: Optional[str] = None
    agent: Optional[str] = None  # another app served here, whose agent the turns are replayed through


async def _session(request: Request, *, needs_app: bool = False) -> tuple[Any, str, str, str]:
    """The services and the session's ids; only a route that runs the agent needs its app served."""
    app_name, user_id = access.path(request, "app_name"), access.path(request, "user_id")
    if needs_app:
        services = access.for_user(request, app_name, user_id)
    else:
        services = await access.for_stored(request, app_name, user_id)
    return services, app_name, user_id, access.path(request, "session_id")


async def rewind(request: Request) -> Response:
    services, app_name, user_id, session_id = await _session(request)
    req = await parse_body(request, RewindRequest)
    if not services.serves(app_name):  # a stored session of an app not served: no agent is needed
        from runtime.rewind import rewind_with_files

        marker, _ = await rewind_with_files(
            services.sessions, services.artifacts, app_name=app_name, user_id=user_id, session_id=session_id,
            rewind_before_invocation_id=req.invocation_id,
        )
        return respond(marker)
    runner = await services.runner(app_name)
    marker = await runner.rewind_async(user_id=user_id, session_id=session_id, rewind_before_invocation_id=req.invocation_id)
    return respond(marker)


async def fork(request: Request) -> Response:
    services, app_name, user_id, session_id = await _session(request)
    req = await parse_body(request, ForkRequest, required=False) or ForkRequest()
    forked = await services.sessions.fork_session(
        app_name=app_name, user_id=user_id, session_id=session_id,
        at_invocation_id=req.at_invocation_id, new_session_id=req.new_session_id,
    )
    return respond(forked)


async def replay(request: Request) -> Response:
    services, app_name, user_id, session_id = await _session(request, needs_app=True)
    req = await parse_body(request, ReplayRequest, required=False) or ReplayRequest()
    if req.agent is not None:
        services.check_app(req.agent)  # 404 before anything is written
    runner = await services.runner(app_name, req.agent)
    report = await runner.replay(
        user_id=user_id, session_id=session_id, new_session_id=req.new_session_id,
        from_invocation_id=req.from_invocation_id,
    )
    return respond(report.to_json())


async def _history(services: Any, row: Any) -> History:
    """The session's timeline with its rewinds, as `chronicle history` reads it."""
    return await services.store.call(load_history, services.store, row, services.time_travel)


HISTORY_PAGE = 500  # events in a history page unless the caller asks for another size
HISTORY_PAGE_MAX = 5000


def _version_param(params: Any, name: str) -> int | None:
    value = params.get(name)
    if value is None:
        return None
    try:
        number = int(value)
    except ValueError:
        raise InvalidArgumentError(f"{name} must be a whole number, got {value!r}.") from None
    if number < 0:
        raise InvalidArgumentError(f"{name} must not be negative, got {number}.")
    return number


async def history(request: Request) -> Response:
    """A page of the session's timeline: its newest events, or those before ``before`` or after
    ``after`` (versions); ``window`` says which, and where the pages beside it start."""
    from runtime.operations.history import window

    services, app_name, user_id, session_id = await _session(request)
    params = request.query_params
    limit = _version_param(params, "limit")
    limit = HISTORY_PAGE if limit is None else limit
    if not 1 <= limit <= HISTORY_PAGE_MAX:
        raise InvalidArgumentError(f"limit must be from 1 to {HISTORY_PAGE_MAX}, got {limit}.")
    before, after = _version_param(params, "before"), _version_param(params, "after")
    if before is not None and after is not None:
        raise InvalidArgumentError("Name one of before and after, not both.")
    row = await services.store.call(services.reader.stored_session, app_name, user_id, session_id)
    page = window(row, limit, before=before, after=after)
    found = await services.store.call(
        lambda: load_history(services.store, row, services.time_travel, within=page))
    return respond(found.summary())


async def traces(request: Request) -> Response:
    """The session's spans folded from its log (runtime.telemetry.after), for the viewer's waterfall."""
    from runtime.telemetry.after import session_spans

    services, app_name, user_id, session_id = await _session(request)
    spans = await services.store.call(session_spans, services.store, app_name, user_id, session_id)
    return respond({"spans": [span.to_json() for span in spans]})


def _point(params: Any, prefix: str = "") -> At:
    given = [key for key in ("event", "before", "after", "version", "time") if params.get(prefix + key) is not None]
    if len(given) > 1:
        raise InvalidArgumentError(f"Name one point, got {', '.join(prefix + g for g in given)}.")
    if not given:
        return At.latest()
    key = given[0]
    value = params[prefix + key]
    try:
        if key == "version":
            return At.log_version(int(value))
        if key == "time" and math.isfinite(float(value)):
            return At.time(float(value))
        if key == "time":
            raise ValueError(value)
    except ValueError:
        raise InvalidArgumentError(f"{prefix + key} must be a finite number, got {value!r}.") from None
    return {"event": At.event, "before": At.before, "after": At.after}[key](value)


async def state_at(request: Request) -> Response:
    services, app_name, user_id, session_id = await _session(request)
    at = _point(request.query_params)
    found = await services.store.call(services.time_travel.state_at, (app_name, user_id, session_id), at)
    return respond(found)


async def diff(request: Request) -> Response:
    services, app_name, user_id, session_id = await _session(request)
    start, end = _point(request.query_params, "from_"), _point(request.query_params, "to_")
    if start == At.latest():
        raise InvalidArgumentError("Name where the diff starts: from_event, from_before, from_after, from_version or from_time.")
    found = await services.store.call(services.time_travel.diff, (app_name, user_id, session_id), start, end)
    out = dump(found)
    for change, raw in zip(out["changes"], found.changes):  # a key absent on one side: null, and said so
        for side in ("before", "after"):
            if getattr(raw, side) is MISSING:
                change[side], change[side + "_absent"] = None, True
    return respond(out)


async def verify_session(request: Request) -> Response:
    from runtime.operations.audit import audit

    services, app_name, user_id, session_id = await _session(request)
    log_id = str(session_log_id(app_name, user_id, session_id))
    await services.store.call(services.reader.stored_session, app_name, user_id, session_id)
    report = await services.store.call(audit, services.store, app_name, user_id, session_id)
    if report.ok:
        return respond({"ok": True})
    # broken: the session log's first broken link; logs: every broken log of the session (its
    # artifact logs too); drifted: its derived rows that are not what the log says
    mine = next(({"version": b.version, "reason": b.reason, "event_id": b.event_id, "found": b.found,
                  "expected": b.expected} for b in report.broken if b.log_id == log_id), None)
    return respond({"ok": False, "broken": mine, "logs": report.broken, "drifted": report.drifted})


async def verify_store(request: Request) -> Response:
    from runtime.operations.audit import audit

    access.caller(request).check_operator("Verifying the store")
    services = access.services(request)
    app_name, user_id = request.query_params.get("app"), request.query_params.get("user")
    report = await services.store.call(audit, services.store, app_name, user_id)
    return respond({"ok": report.ok, "logs": report.logs, "events": report.events,
                    "broken": report.broken, "scoped": report.scoped, "drifted": report.drifted,
                    "corrupt": report.corrupt, "restore": report.restore, "notes": report.notes})


async def export(request: Request) -> Response:
    from runtime.operations import export as exporting

    services, app_name, user_id, session_id = await _session(request)
    kind = request.query_params.get("format", "jsonl")
    row = await services.store.call(services.reader.stored_session, app_name, user_id, session_id)
    if kind == "jsonl":
        lines = await services.store.call(lambda: list(exporting.jsonl_lines(services.store, row.log_id)))
        return PlainTextResponse("".join(line + "\n" for line in lines), media_type="application/x-ndjson")
    if kind == "markdown":
        transcript = exporting.markdown(await _history(services, row))
        return PlainTextResponse(transcript, media_type="text/markdown")
    if kind == "adk":
        session = await services.sessions.get_session(app_name=app_name, user_id=user_id, session_id=session_id)
        if session is None:
            raise SessionNotFoundError(app_name, user_id, session_id, "It was deleted; export its log with format=jsonl.")
        return respond(exporting.adk_session(session))
    raise InvalidArgumentError(f"Unknown export format {kind!r}; use jsonl, markdown or adk.")


async def pending_of_session(request: Request) -> Response:
    services, app_name, user_id, session_id = await _session(request)
    row = await services.store.call(services.reader.stored_session, app_name, user_id, session_id)
    return respond(list((await services.store.call(services.reader.open_requests, row)).values()))


async def pending_of_app(request: Request) -> Response:
    app_name = access.path(request, "app_name")
    access.caller(request).check_operator("Listing every user's pending requests")
    services = await access.for_stored(request, app_name)

    found = await services.store.call(services.reader.pending, app_name, None)
    return respond([{"user_id": r.user_id, "session_id": r.session_id, **dump(req)} for r, req in found])


async def analytics(request: Request) -> Response:
    app_name = access.path(request, "app_name")
    access.caller(request).check_operator("Analytics of a whole app")
    services = await access.for_stored(request, app_name)

    def view() -> Any:
        follower = services.analytics
        follower.catch_up()
        found = follower.find(app_name)  # this app's view alone, not every app's decoded
        return {k: v for k, v in found.to_json().items() if k != "cursors"} if found is not None else {}

    return respond(await services.store.call(view))


SESSION = "/apps/{app_name}/users/{user_id}/sessions/{session_id}"
ROUTES = [
    Route(SESSION + "/rewind", rewind, methods=["POST"]),
    Route(SESSION + "/fork", fork, methods=["POST"]),
    Route(SESSION + "/replay", replay, methods=["POST"]),
    Route(SESSION + "/history", history, methods=["GET"]),
    Route(SESSION + "/state", state_at, methods=["GET"]),
    Route(SESSION + "/diff", diff, methods=["GET"]),
    Route(SESSION + "/verify", verify_session, methods=["GET"]),
    Route(SESSION + "/export", export, methods=["GET"]),
    Route(SESSION + "/pending", pending_of_session, methods=["GET"]),
    Route("/chronicle" + SESSION + "/traces", traces, methods=["GET"]),
    Route("/chronicle/verify", verify_store, methods=["GET"]),
    Route("/apps/{app_name}/analytics", analytics, methods=["GET"]),
    Route("/apps/{app_name}/pending", pending_of_app, methods=["GET"]),
]
