"""Every route's first step: the services, and the checks that a request may touch what it names.

`for_user` is the rule "a caller reaches only its own users' data": a route that names a user
(in its path or its body) passes it here before reading or writing anything."""

from __future__ import annotations

from starlette.requests import Request

from domain.validation import check_ids
from runtime.server.auth import Caller
from runtime.server.services import Services


def services(request: Request) -> Services:
    return request.app.state.services


def caller(request: Request) -> Caller:
    return request.state.caller


def for_app(request: Request, app_name: str) -> Services:
    """The services, once `app_name` is known to be an app here (else 404)."""
    found = services(request)
    found.check_app(app_name)
    return found


def for_user(request: Request, app_name: str, user_id: str) -> Services:
    """The services, once the caller may act for `user_id` (else 403) in a known app (else 404)."""
    caller(request).check_user(user_id)
    found = for_app(request, app_name)
    check_ids(app_name, user_id)
    return found


async def for_stored(request: Request, app_name: str, user_id: str | None = None) -> Services:
    """As `for_user` (or, without a user, `for_app`), but an app that is not served passes when the
    store holds its sessions: reading a stored session, rewinding or forking it needs no agent."""
    found = services(request)
    if user_id is not None:
        caller(request).check_user(user_id)
        check_ids(app_name, user_id)
    await found.check_stored(app_name, user_id)
    return found


def path(request: Request, name: str) -> str:
    return request.path_params[name]
