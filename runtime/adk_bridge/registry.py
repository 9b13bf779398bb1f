"""``chronicle+sqlite://``, ``chronicle+postgresql://`` and ``chronicle+memory://`` in google-adk's
service registry, for ``adk web``, ``adk api_server`` and ``adk run``.

ADK reads ``services.py`` from the agents directory before it builds its services; one line
there makes the schemes known (docs/adk-bridge.md):

    from runtime.adk_bridge import register_with_adk; register_with_adk()

then ``adk web --session_service_uri chronicle+sqlite:///./chronicle.db`` (and the same URI for
``--artifact_service_uri`` and ``--memory_service_uri``) runs ADK on Chronicle's log.
"""

from __future__ import annotations

from typing import Any, Callable

from google.adk.cli.service_registry import ServiceRegistry, get_service_registry

from domain.errors import InvalidArgumentError
from runtime.adk_bridge.artifacts import ChronicleArtifactService
from runtime.adk_bridge.memory import ChronicleMemoryService
from runtime.adk_bridge.sessions import ChronicleSessionService
from runtime.stores import Store, open_store

PREFIX = "chronicle+"
SCHEMES = ("chronicle+sqlite", "chronicle+postgresql", "chronicle+memory")


def store_url(uri: str) -> str:
    """The Chronicle store URL a ``chronicle+…`` URI names: ``chronicle+sqlite:///a.db`` is
    ``sqlite:///a.db``."""
    if not any(uri.startswith(f"{scheme}:") for scheme in SCHEMES):
        raise InvalidArgumentError(
            f"{uri!r} is not a Chronicle URI; use one of {', '.join(s + '://' for s in SCHEMES)}"
        )
    return uri[len(PREFIX):]


def register_with_adk(registry: ServiceRegistry | None = None) -> None:
    """Registers Chronicle's session, artifact and memory services under ``chronicle+…`` URI
    schemes in ADK's service registry (its global one unless given). The services ADK builds
    from one URI share one store, so a ``chronicle+memory://`` memory sees its sessions."""
    registry = registry or get_service_registry()
    stores: dict[str, Store] = {}

    def shared(uri: str) -> Store:
        url = store_url(uri)
        if url not in stores:
            stores[url] = open_store(url)
        return stores[url]

    def factory(service: Callable[..., Any]) -> Callable[..., Any]:
        # ADK passes its own options (agents_dir, database kwargs); Chronicle's store needs none.
        return lambda uri, **_: service(shared(uri), owns_store=False)

    for scheme in SCHEMES:
        registry.register_session_service(scheme, factory(ChronicleSessionService))
        registry.register_artifact_service(scheme, factory(ChronicleArtifactService))
        registry.register_memory_service(scheme, factory(ChronicleMemoryService))
