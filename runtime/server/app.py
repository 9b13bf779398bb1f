"""The ASGI application: the routes, and around them authentication, the body limit and CORS.

`create_app(config)` builds it; `app_from_env()` is the factory uvicorn calls in each worker
process of `chronicle serve` (the config comes through the environment)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any, AsyncIterator, Optional

from pydantic import ValidationError
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from domain.errors import ChronicleError
from runtime.server import routes_artifacts, routes_basic, routes_chronicle, routes_debug, routes_run, routes_sessions
from runtime.server import routes_answer, routes_eval, routes_ui, routes_viewer
from runtime.server.auth import Authenticator, Unauthenticated, authenticator_for
from runtime.server.config import ServerConfig
from runtime.server.http import BodyTooLarge, error_response
from runtime.server.sealing import start_sealing
from runtime.server.services import Services

log = logging.getLogger("chronicle.server")

PUBLIC_PATHS = frozenset({"/health", "/version"})
"""Routes anyone may call: they say nothing about anyone's data."""


class Authenticate:
    """Puts the caller on every request (`request.state.caller`), or answers 401."""

    def __init__(self, app: ASGIApp, authenticator: Authenticator):
        self.app, self.authenticator = app, authenticator

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] != "OPTIONS" and scope["path"] not in PUBLIC_PATHS \
                and not routes_ui.is_public(scope["path"]):
            headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
            try:
                scope.setdefault("state", {})["caller"] = self.authenticator.authenticate(headers)
            except Unauthenticated as e:
                await error_response(e)(scope, receive, send)
                return
        await self.app(scope, receive, send)


class LimitBody:
    """Refuses a body over `limit` bytes with 413: at once when Content-Length says so, else as
    soon as the bytes read pass it (before a handler could act on them)."""

    def __init__(self, app: ASGIApp, limit: int):
        self.app, self.limit = app, limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.limit:
            await error_response(self._error())(scope, receive, send)
            return
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise self._error()
            return message

        await self.app(scope, counted, send)

    def _error(self) -> BodyTooLarge:
        return BodyTooLarge(f"The request body is over the server's limit of {self.limit} bytes.")


async def _handle(request: Any, error: Exception) -> Any:
    return error_response(error)


async def _warm(services: Services) -> None:
    """Loads the sessions read model (folding what it lacks: the whole log, the first time a store
    is served) while the server starts answering, rather than in the first request that needs it."""
    from runtime.read_models.sessions import SessionIndex

    try:
        await services.store.call(SessionIndex.of(services.store).refresh)
    except Exception:  # noqa: BLE001 - the first request that needs it will meet the error again
        log.warning("could not load the sessions read model at start-up", exc_info=True)


def create_app(config: ServerConfig, *, authenticator: Optional[Authenticator] = None) -> Starlette:
    authenticator = authenticator or authenticator_for(config.tokens_file, config.tokens_env, config.authenticator)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        app.state.services = Services(config)
        sealer = start_sealing(app.state.services.store, config)  # with --seal-key: sealing in the background
        warming = asyncio.ensure_future(_warm(app.state.services))
        try:
            yield
        finally:
            await warming
            await sealer.stop()
            await app.state.services.close()

    middleware = [Middleware(LimitBody, limit=config.max_body_bytes)]
    if config.cors_origins:
        middleware.append(Middleware(
            CORSMiddleware, allow_origins=config.cors_origins, allow_methods=["*"], allow_headers=["*"],
        ))
    middleware.append(Middleware(Authenticate, authenticator=authenticator))
    app = Starlette(
        routes=[*routes_basic.ROUTES, *routes_sessions.ROUTES, *routes_artifacts.ROUTES, *routes_run.ROUTES,
                *routes_chronicle.ROUTES, *routes_debug.ROUTES,
                *routes_answer.ROUTES, *routes_viewer.ROUTES, *routes_eval.ROUTES, *routes_ui.ROUTES],
        middleware=middleware,
        exception_handlers={ChronicleError: _handle, ValidationError: _handle, HTTPException: _handle, Exception: _handle},
        lifespan=lifespan,
    )
    app.state.authenticated = getattr(authenticator, "enabled", True)
    return app


def app_from_env() -> Starlette:
    return create_app(ServerConfig.from_env())
