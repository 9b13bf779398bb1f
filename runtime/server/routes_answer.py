"""Answering a person's request over HTTP, without building ADK's function-response message:

    POST /apps/{app}/users/{user}/sessions/{session}/pending/{request_id}
         {"confirmed": true|false, "payload"?: ...}   a confirmation (approve or reject)
         {"payload": ...} or {"response": {...}}      an input request, or another long-running call
         {"response": {AuthConfig}}                   a credential request

It records the same user message a client would send to /run (a FunctionResponse with the
request's id and name), so the run resumes exactly as ADK's answer would, and answers with the
request and the events of the resumed run. An id no request ever had is a 404; a request
answered already (or cancelled, or rewound away) is a 409; another user's session is a 403."""

from __future__ import annotations

import asyncio
from typing import Any, Optional

from google.genai import types
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from domain.errors import AlreadyExistsError, InvalidArgumentError
from runtime.server import access
from runtime.server.http import NotFound, dump, parse_body, respond
from runtime.server.routes_chronicle import SESSION
from runtime.server.routes_run import Run, RunAgentRequest
from runtime.server.routes_sessions import Body


class AnswerRequest(Body):
    confirmed: Optional[bool] = None
    payload: Any = None
    response: Optional[dict[str, Any]] = None


class AlreadyAnswered(AlreadyExistsError):
    """The request was answered, cancelled or rewound away (409)."""


def response_for(kind: str, answer: AnswerRequest) -> dict[str, Any]:
    """The FunctionResponse's `response` that answers a request of this kind."""
    if answer.response is not None:
        return answer.response
    if kind == "confirmation":
        if answer.confirmed is None:
            raise InvalidArgumentError('A confirmation is answered with {"confirmed": true} or {"confirmed": false}.')
        return {"confirmed": answer.confirmed, **({"payload": answer.payload} if answer.payload is not None else {})}
    if kind == "credential":
        raise InvalidArgumentError('A credential request is answered with {"response": <AuthConfig with exchangedAuthCredential>}.')
    if answer.payload is None:
        raise InvalidArgumentError('Give the answer as {"payload": ...} (or the whole {"response": {...}}).')
    return answer.payload if isinstance(answer.payload, dict) else {"result": answer.payload}


async def answer(request: Request) -> Response:
    app_name, user_id = access.path(request, "app_name"), access.path(request, "user_id")
    services = access.for_user(request, app_name, user_id)
    session_id, request_id = access.path(request, "session_id"), access.path(request, "request_id")
    body = await parse_body(request, AnswerRequest, required=False) or AnswerRequest()
    row = await services.store.call(services.reader.stored_session, app_name, user_id, session_id)
    pending = (await services.store.call(services.reader.open_requests, row)).get(request_id)
    if pending is None:
        if await services.store.call(services.reader.ever_requested, row, request_id):
            raise AlreadyAnswered(f"Request {request_id!r} was answered already (or cancelled, or rewound away).")
        raise NotFound(f"Session {session_id!r} has no request {request_id!r}; GET …/pending lists the open ones.")
    reply = types.FunctionResponse(id=request_id, name=pending.name, response=response_for(pending.kind, body))
    run = Run(await services.runner(app_name), RunAgentRequest(
        app_name=app_name, user_id=user_id, session_id=session_id,
        new_message=types.Content(role="user", parts=[types.Part(function_response=reply)]),
    ), services.config.max_run_events)
    queue: asyncio.Queue = asyncio.Queue()
    await run.pump(queue)
    events: list[Any] = []
    while (item := queue.get_nowait()) is not None:
        if isinstance(item, BaseException):
            raise item
        if not item.partial:
            events.append(dump(item))
    return respond({"request": dump(pending), "events": events})


ROUTES = [Route(SESSION + "/pending/{request_id}", answer, methods=["POST"])]
