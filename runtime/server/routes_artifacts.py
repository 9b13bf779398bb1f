"""ADK's artifact routes under /apps/{app}/users/{user}/sessions/{session}/artifacts: list names,
save, load (latest or a version), versions and their metadata, delete. Names may hold '/', so
the routes that end in /versions… come before the catch-all, as in ADK."""

from __future__ import annotations

from typing import Any, Optional

from google.genai import types
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from runtime.server import access
from runtime.sessions.base import GetSessionConfig
from runtime.server.http import NotFound, Unprocessable, parse_body, respond
from runtime.server.routes_sessions import Body


class SaveArtifactRequest(Body):
    filename: str
    artifact: types.Part
    custom_metadata: Optional[dict[str, Any]] = None


async def _scope(request: Request) -> tuple[Any, dict[str, str]]:
    """Reading a stored session's files needs no agent; saving or deleting one needs its app served."""
    app_name, user_id = access.path(request, "app_name"), access.path(request, "user_id")
    if request.method == "GET":
        services = await access.for_stored(request, app_name, user_id)
    else:
        services = access.for_user(request, app_name, user_id)
    return services, {"app_name": app_name, "user_id": user_id, "session_id": access.path(request, "session_id")}


def _version(text: Optional[str]) -> Optional[int]:
    if text is None or text == "latest":
        return None
    try:
        return int(text)
    except ValueError:
        raise Unprocessable("Invalid version ID") from None


async def list_names(request: Request) -> Response:
    services, scope = await _scope(request)
    return respond(await services.artifacts.list_artifact_keys(**scope))


async def save(request: Request) -> Response:
    services, scope = await _scope(request)
    req = await parse_body(request, SaveArtifactRequest)
    # A save names a live session (docs/server.md): one that never existed, or was deleted, is a 404,
    # so no caller can leave artifacts that an audit would take for a session deleted behind Chronicle's back.
    await services.session(**scope, config=GetSessionConfig(num_recent_events=1))
    version = await services.artifacts.save_artifact(
        **scope, filename=req.filename, artifact=req.artifact, custom_metadata=req.custom_metadata
    )
    return respond(await services.artifacts.get_artifact_version(**scope, filename=req.filename, version=version))


async def load(request: Request) -> Response:
    services, scope = await _scope(request)
    version = _version(request.path_params.get("version_id") or request.query_params.get("version"))
    part = await services.artifacts.load_artifact(**scope, filename=access.path(request, "artifact_name"), version=version)
    if part is None:
        raise NotFound("Artifact not found")
    return respond(part)


async def versions(request: Request) -> Response:
    services, scope = await _scope(request)
    return respond(await services.artifacts.list_versions(**scope, filename=access.path(request, "artifact_name")))


async def versions_metadata(request: Request) -> Response:
    services, scope = await _scope(request)
    return respond(await services.artifacts.list_artifact_versions(**scope, filename=access.path(request, "artifact_name")))


async def version_metadata(request: Request) -> Response:
    services, scope = await _scope(request)
    found = await services.artifacts.get_artifact_version(
        **scope, filename=access.path(request, "artifact_name"), version=_version(access.path(request, "version_id"))
    )
    if found is None:
        raise NotFound("Artifact version not found")
    return respond(found)


async def delete(request: Request) -> Response:
    services, scope = await _scope(request)
    await services.artifacts.delete_artifact(**scope, filename=access.path(request, "artifact_name"))
    return respond(None)


BASE = "/apps/{app_name}/users/{user_id}/sessions/{session_id}/artifacts"
NAME = BASE + "/{artifact_name:path}"
ROUTES = [
    Route(BASE, list_names, methods=["GET"]),
    Route(BASE, save, methods=["POST"]),
    Route(NAME + "/versions/metadata", versions_metadata, methods=["GET"]),
    Route(NAME + "/versions/{version_id}/metadata", version_metadata, methods=["GET"]),
    Route(NAME + "/versions/{version_id}", load, methods=["GET"]),
    Route(NAME + "/versions", versions, methods=["GET"]),
    Route(NAME, load, methods=["GET"]),
    Route(NAME, delete, methods=["DELETE"]),
]
