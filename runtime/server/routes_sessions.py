"""ADK's session routes under /apps/{app}/users/{user}/sessions: list, create (with a state and
earlier events), get, delete, and PATCH a state delta without running the agent; and PATCH
/apps/{app}/users/{user}/memory, which adds a session to its user's memory."""

from __future__ import annotations

import uuid
from typing import Any, Optional

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from domain.errors import InvalidArgumentError
from domain.events import Event, EventActions
from domain.validation import check_ids
from runtime.server import access
from runtime.server.http import json_body, parse_body, respond


class Body(BaseModel):
    """Request bodies take camelCase or snake_case keys, as ADK's do."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)


class CreateSessionRequest(Body):
    session_id: Optional[str] = None
    state: Optional[dict[str, Any]] = None
    events: Optional[list[Event]] = None


class UpdateSessionRequest(Body):
    state_delta: dict[str, Any]


class UpdateMemoryRequest(Body):
    session_id: str


def _ids(request: Request) -> tuple[str, str]:
    return access.path(request, "app_name"), access.path(request, "user_id")


async def list_sessions(request: Request) -> Response:
    app_name, user_id = _ids(request)
    services = await access.for_stored(request, app_name, user_id)
    found = await services.sessions.list_sessions(app_name=app_name, user_id=user_id)
    return respond(found.sessions)


async def create_session(request: Request) -> Response:
    app_name, user_id = _ids(request)
    services = access.for_user(request, app_name, user_id)
    req = await parse_body(request, CreateSessionRequest, required=False) or CreateSessionRequest()
    for i, event in enumerate(req.events or []):
        _check_restored(i, event)
    if req.session_id is not None:
        check_ids(app_name, user_id, req.session_id)
    session = await services.sessions.create_session(
        app_name=app_name, user_id=user_id, state=req.state, session_id=req.session_id
    )
    for event in req.events or []:
        await services.sessions.append_event(session, event)
    return respond(session)


async def create_session_with_id(request: Request) -> Response:
    """ADK's deprecated POST …/sessions/{id}, whose body is the initial state."""
    app_name, user_id = _ids(request)
    services = access.for_user(request, app_name, user_id)
    state = await json_body(request, required=False)
    if state is not None and not isinstance(state, dict):
        raise InvalidArgumentError("The body must be the session's initial state, a JSON object.")
    session = await services.sessions.create_session(
        app_name=app_name, user_id=user_id, state=state, session_id=access.path(request, "session_id")
    )
    return respond(session)


async def get_session(request: Request) -> Response:
    app_name, user_id = _ids(request)
    services = await access.for_stored(request, app_name, user_id)
    return respond(await services.session(app_name, user_id, access.path(request, "session_id")))


async def delete_session(request: Request) -> Response:
    app_name, user_id = _ids(request)
    services = access.for_user(request, app_name, user_id)
    await services.sessions.delete_session(app_name=app_name, user_id=user_id, session_id=access.path(request, "session_id"))
    return respond(None)


async def update_session(request: Request) -> Response:
    app_name, user_id = _ids(request)
    services = access.for_user(request, app_name, user_id)
    req = await parse_body(request, UpdateSessionRequest)
    session = await services.session(app_name, user_id, access.path(request, "session_id"))
    event = Event(invocation_id=f"p-{uuid.uuid4()}", author="user", actions=EventActions(state_delta=req.state_delta))
    await services.sessions.append_event(session, event)
    return respond(session)


async def patch_memory(request: Request) -> Response:
    """Adds a session's events to its user's memory."""
    app_name, user_id = _ids(request)
    services = access.for_user(request, app_name, user_id)
    req = await parse_body(request, UpdateMemoryRequest)
    await services.memory.add_session_to_memory(await services.session(app_name, user_id, req.session_id))
    return respond(None)


def _check_restored(index: int, event: Event) -> None:
    """Events given at creation restore a conversation: they may not claim to be the runtime's own
    (actions, long-running calls), as ADK refuses too."""
    if event.long_running_tool_ids:
        raise InvalidArgumentError(f"Session initialization event {index} cannot include long-running tool IDs.")
    if event.actions != EventActions():
        raise InvalidArgumentError(f"Session initialization event {index} cannot include event actions.")
    if event.partial:
        raise InvalidArgumentError(f"Session initialization event {index} is partial; send whole events.")


BASE = "/apps/{app_name}/users/{user_id}/sessions"
ROUTES = [
    Route(BASE, list_sessions, methods=["GET"]),
    Route(BASE, create_session, methods=["POST"]),
    Route(BASE + "/{session_id}", get_session, methods=["GET"]),
    Route(BASE + "/{session_id}", create_session_with_id, methods=["POST"]),
    Route(BASE + "/{session_id}", delete_session, methods=["DELETE"]),
    Route(BASE + "/{session_id}", update_session, methods=["PATCH"]),
    Route("/apps/{app_name}/users/{user_id}/memory", patch_memory, methods=["PATCH"]),
]
