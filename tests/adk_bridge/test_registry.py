"""`register_with_adk()`: ADK builds Chronicle's services from chronicle+… URIs, and the one-line
services.py ADK reads from the agents directory is enough."""

from __future__ import annotations

import pytest
from google.adk.cli.service_registry import ServiceRegistry, get_service_registry, load_services_module
from google.adk.cli.utils.service_factory import (
    create_artifact_service_from_options,
    create_memory_service_from_options,
    create_session_service_from_options,
)

from domain.errors import InvalidArgumentError
from runtime.adk_bridge import (
    ChronicleArtifactService,
    ChronicleMemoryService,
    ChronicleSessionService,
    register_with_adk,
    store_url,
)
from tests.adk_bridge.helpers import APP, Shop

SERVICES_PY = "from runtime.adk_bridge import register_with_adk; register_with_adk()\n"


def uri_of(url: str) -> str:
    return "chronicle+" + url


def test_store_urls():
    assert store_url("chronicle+sqlite:///./chronicle.db") == "sqlite:///./chronicle.db"
    assert store_url("chronicle+postgresql://ann@db:5432/app") == "postgresql://ann@db:5432/app"
    assert store_url("chronicle+memory://") == "memory://"
    with pytest.raises(InvalidArgumentError, match="chronicle\\+sqlite://"):
        store_url("sqlite:///x.db")


async def test_services_from_uris_share_one_store(store_url):
    registry = ServiceRegistry()
    register_with_adk(registry)
    uri = uri_of(store_url)
    sessions = registry.create_session_service(uri, agents_dir="/tmp")
    artifacts = registry.create_artifact_service(uri, agents_dir="/tmp")
    memory = registry.create_memory_service(uri, agents_dir="/tmp")
    assert isinstance(sessions, ChronicleSessionService) and isinstance(artifacts, ChronicleArtifactService)
    assert isinstance(memory, ChronicleMemoryService)
    assert sessions.store is artifacts.store is memory.store

    session = await sessions.create_session(app_name=APP, user_id="ann", session_id="s1")
    shop = Shop(store_url)
    shop.runner = type(shop.runner)(app=shop.app, session_service=sessions, artifact_service=artifacts,
                                    memory_service=memory)
    await shop.turn("ann", "s1", "remember the blue lamp")
    await memory.add_session_to_memory(await sessions.get_session(app_name=APP, user_id="ann", session_id="s1"))
    found = await memory.search_memory(app_name=APP, user_id="ann", query="blue lamp")
    assert any("blue lamp" in m.content.parts[0].text for m in found.memories)
    assert session.id == "s1"
    sessions.store.close()


async def test_the_one_line_services_py_is_enough_for_adk_web(tmp_path):
    (tmp_path / "services.py").write_text(SERVICES_PY)
    load_services_module(str(tmp_path))
    assert all(f"chronicle+{s}" in get_service_registry()._session_factories for s in ("sqlite", "postgresql", "memory"))
    uri = f"chronicle+sqlite:///{tmp_path}/chronicle.db"
    # What `adk web --session_service_uri … --artifact_service_uri … --memory_service_uri …` calls.
    sessions = create_session_service_from_options(base_dir=tmp_path, session_service_uri=uri)
    artifacts = create_artifact_service_from_options(base_dir=tmp_path, artifact_service_uri=uri)
    memory = create_memory_service_from_options(base_dir=tmp_path, memory_service_uri=uri)
    assert isinstance(sessions, ChronicleSessionService) and isinstance(artifacts, ChronicleArtifactService)
    assert isinstance(memory, ChronicleMemoryService)
    await sessions.create_session(app_name=APP, user_id="ann", session_id="s1")
    assert (tmp_path / "chronicle.db").exists()
    sessions.store.close()
