"""ADK's basic routes: /health, /version, /list-apps, /apps/{app}/app-info."""

from __future__ import annotations

import sys
from importlib import metadata
from typing import Any

from google.genai import types
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from domain.errors import InvalidArgumentError
from runtime.server import access
from runtime.server.http import logger, respond


async def health(request: Request) -> JSONResponse:
    return JSONResponse({"status": "ok"})


async def version(request: Request) -> JSONResponse:
    try:
        chronicle = metadata.version("chronicle")
    except metadata.PackageNotFoundError:
        chronicle = "dev"
    info = sys.version_info
    return JSONResponse({
        "version": chronicle,
        "language": "python",
        "language_version": f"{info.major}.{info.minor}.{info.micro}",
        "runtime": "chronicle",
    })


async def list_apps(request: Request):
    services = access.services(request)
    names = services.loader.list_apps()
    if request.query_params.get("detailed", "false").lower() not in ("true", "1"):
        return respond(names)
    apps = []
    for name in names:
        try:
            agent = await services.root_agent(name)
        except Exception:  # noqa: BLE001 - ADK lists the apps that load and logs the rest
            logger.warning("App %r does not load; left out of /list-apps.", name, exc_info=True)
            continue
        apps.append({
            "name": name, "rootAgentName": agent.name, "description": agent.description,
            "language": services.loader.language(name), "isComputerUse": False,
        })
    return respond({"apps": apps})


async def app_info(request: Request):
    app_name = access.path(request, "app_name")
    services = access.for_app(request, app_name)
    agent = await services.root_agent(app_name)
    from runtime.agents import LlmAgent

    if not isinstance(agent, LlmAgent):
        raise InvalidArgumentError("Root agent is not an LlmAgent")
    return respond({
        "name": app_name,
        "rootAgentName": agent.name,
        "description": agent.description,
        "language": services.loader.language(app_name),
        "isComputerUse": False,
        "agents": await _agents(agent),
    })


async def _agents(root: Any) -> dict[str, Any]:
    """Each LlmAgent in the tree: name, description, instruction, tool declarations, sub-agents."""
    from runtime.agents import LlmAgent

    found: dict[str, Any] = {}

    async def visit(agent: Any) -> None:
        if agent.name in found:
            return
        subs = [sub for sub in agent.sub_agents if isinstance(sub, LlmAgent)]
        for sub in subs:
            await visit(sub)
        instruction = agent.instruction
        if callable(instruction):
            instruction = f"<InstructionProvider: {getattr(instruction, '__name__', type(instruction).__name__)}>"
        tools = []
        for tool in await agent.canonical_tools():
            declaration = tool._get_declaration()
            if declaration is not None and tool.name != "transfer_to_agent":
                tools.append(types.Tool(function_declarations=[declaration]))
        found[agent.name] = {
            "name": agent.name, "description": agent.description, "instruction": instruction,
            "tools": tools, "sub_agents": [sub.name for sub in subs],  # snake_case, as ADK's AgentInfo
        }

    await visit(root)
    return found


ROUTES = [
    Route("/health", health),
    Route("/version", version),
    Route("/list-apps", list_apps),
    Route("/apps/{app_name}/app-info", app_info),
]
