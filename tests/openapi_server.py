"""A small REST API on a loopback port (Starlette under uvicorn, in a thread) with its OpenAPI spec,
for the OpenAPI tool tests: pets behind an API key, a profile behind an OAuth2 bearer token, and
the OAuth2 token endpoint that refreshes it (and exchanges a sign-in's code). Every request is recorded."""

from __future__ import annotations

import threading
import time
from typing import Any, Iterator

import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.routing import Route

from tools.serve_process import free_port

API_KEY = "pk-live-7c1e-SECRET"
ACCESS_TOKEN = "at-first-SECRET"
REFRESHED_TOKEN = "at-refreshed-SECRET"
REFRESH_TOKEN = "rt-SECRET"
AUTH_CODE = "code-from-the-sign-in"


def spec(base_url: str) -> dict[str, Any]:
    api_key = [{"petKey": []}]
    return {
        "openapi": "3.0.3",
        "info": {"title": "Pets", "version": "1"},
        "servers": [{"url": base_url}],
        "paths": {
            "/pets/{petId}": {"get": {
                "operationId": "getPet", "summary": "Gets a pet by id.", "security": api_key,
                "parameters": [
                    {"name": "petId", "in": "path", "required": True, "schema": {"type": "integer"}},
                    {"name": "verbose", "in": "query", "schema": {"type": "boolean"}, "description": "More detail."},
                ],
                "responses": {"200": {"description": "The pet.", "content": {"application/json": {
                    "schema": {"$ref": "#/components/schemas/Pet"}}}}},
            }},
            "/pets": {"post": {
                "operationId": "addPet", "description": "Adds a pet.", "security": api_key,
                "requestBody": {"content": {"application/json": {"schema": {
                    "type": "object", "required": ["name"],
                    "properties": {"name": {"type": "string", "description": "Its name."},
                                   "tag": {"type": "string"}}}}}},
                "responses": {"201": {"description": "Added."}},
            }},
            "/notes/{name}": {"get": {
                "operationId": "readNote", "parameters": [{"name": "name", "in": "path", "required": True,
                                                           "schema": {"type": "string"}}],
                "responses": {"200": {"description": "The note, as text."}},
            }},
            "/me": {"get": {
                "operationId": "getProfile", "security": [{"login": ["profile"]}],
                "responses": {"200": {"description": "Who I am."}},
            }},
        },
        "components": {
            "schemas": {"Pet": {"type": "object", "properties": {"id": {"type": "integer"}, "name": {"type": "string"}}}},
            "securitySchemes": {
                "petKey": {"type": "apiKey", "in": "header", "name": "X-Api-Key"},
                "login": {"type": "oauth2", "flows": {"authorizationCode": {
                    "authorizationUrl": f"{base_url}/authorize", "tokenUrl": f"{base_url}/token",
                    "scopes": {"profile": "Your profile"}}}},
            },
        },
    }


class OpenApiServer:
    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.requests: list[dict[str, Any]] = []
        self.access_token = ACCESS_TOKEN
        self.refresh_token = REFRESH_TOKEN
        app = Starlette(routes=[
            Route("/pets/{pet_id}", self._get_pet), Route("/pets", self._add_pet, methods=["POST"]),
            Route("/notes/{name:path}", self._note), Route("/me", self._me),
            Route("/token", self._token, methods=["POST"]),
        ])
        self._server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning"))
        self._thread = threading.Thread(target=self._server.run, daemon=True)

    def spec(self) -> dict[str, Any]:
        return spec(self.url)

    async def _record(self, request: Request) -> dict[str, Any]:
        body = await request.body()
        seen = {"method": request.method, "path": request.url.path, "raw_path": request.scope.get("raw_path", b"").decode(),
                "query": dict(request.query_params), "headers": dict(request.headers), "body": body.decode()}
        self.requests.append(seen)
        return seen

    async def _get_pet(self, request: Request) -> Any:
        await self._record(request)
        if request.headers.get("x-api-key") != API_KEY:
            return JSONResponse({"detail": "bad key"}, status_code=401)
        pet = {"id": int(request.path_params["pet_id"]), "name": "Rex"}
        if request.query_params.get("verbose") == "true":
            pet["kind"] = "dog"
        return JSONResponse(pet)

    async def _add_pet(self, request: Request) -> Any:
        await self._record(request)
        if request.headers.get("x-api-key") != API_KEY:
            return JSONResponse({"detail": "bad key"}, status_code=401)
        body = await request.json()
        if "name" not in body:
            return JSONResponse({"detail": "name is required"}, status_code=422)
        return JSONResponse({"id": 8, **body}, status_code=201)

    async def _note(self, request: Request) -> Any:
        await self._record(request)
        return PlainTextResponse(f"note {request.path_params['name']}")

    async def _me(self, request: Request) -> Any:
        await self._record(request)
        if request.headers.get("authorization") != f"Bearer {self.access_token}":
            return JSONResponse({"detail": "bad token"}, status_code=401)
        return JSONResponse({"user": "ann"})

    async def _token(self, request: Request) -> Any:
        seen = await self._record(request)
        form = dict(await request.form()) if not seen["body"] else dict(
            p.split("=", 1) for p in seen["body"].split("&"))
        if form.get("grant_type") == "authorization_code" and form.get("code") == AUTH_CODE:  # a sign-in's code
            return JSONResponse({"access_token": self.access_token, "refresh_token": self.refresh_token,
                                 "token_type": "Bearer", "expires_in": 3600})
        if form.get("grant_type") != "refresh_token" or form.get("refresh_token") != self.refresh_token:
            return JSONResponse({"error": "invalid_grant"}, status_code=400)
        self.access_token = REFRESHED_TOKEN
        return JSONResponse({"access_token": REFRESHED_TOKEN, "token_type": "Bearer", "expires_in": 3600})

    def start(self) -> OpenApiServer:
        self._thread.start()
        deadline = time.monotonic() + 20
        while not self._server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("the OpenAPI test server did not start")
            time.sleep(0.02)
        return self

    def close(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)


@pytest.fixture
def openapi_server() -> Iterator[OpenApiServer]:
    server = OpenApiServer().start()
    try:
        yield server
    finally:
        server.close()
