"""The three services' store ladders (InMemory / Sqlite / Postgres classes) and their `*_from_url`
functions open stores one way: a SQLite path or URL (ADK's sqlite+aiosqlite:// included) names the
same file, a PostgreSQL class refuses any other URL with a typed error, and each `*_from_url` works
on every store."""

from __future__ import annotations

import os

import pytest
from google.genai import types

from domain import Event, EventActions
from domain.errors import InvalidArgumentError
from runtime.artifacts import PostgresArtifactService, SqliteArtifactService, artifact_service_from_url
from runtime.memory import PostgresMemoryService, SqliteMemoryService, memory_service_from_url
from runtime.sessions import PostgresSessionService, SqliteSessionService, session_service_from_url

APP, USER = "urls", "u1"


def _open_sqlite_files(folder) -> list[str]:
    """An open SQLite database keeps its -wal and -shm files; closing its last connection removes them."""
    return sorted(name for name in os.listdir(folder) if name.endswith(("-wal", "-shm")))


@pytest.mark.parametrize("spelling", ["path", "sqlite:///", "sqlite+aiosqlite:///"])
async def test_every_sqlite_class_opens_the_file_a_path_or_url_names(tmp_path, spelling):
    path = tmp_path / "one.db"
    location = str(path) if spelling == "path" else f"{spelling}{path}"
    sessions = SqliteSessionService(location)
    await sessions.create_session(app_name=APP, user_id=USER, session_id="s1")
    artifacts = SqliteArtifactService(location)
    await artifacts.save_artifact(app_name=APP, user_id=USER, session_id="s1", filename="a.txt",
                                  artifact=types.Part(text="hello"))
    memory = SqliteMemoryService(location)
    for service in (sessions, artifacts, memory):
        await service.close()

    assert all(name.startswith("one.db") for name in os.listdir(tmp_path))  # one store, whatever the spelling
    assert _open_sqlite_files(tmp_path) == []  # every service closed its store
    again = session_service_from_url(f"sqlite:///{path}")
    assert await again.get_session(app_name=APP, user_id=USER, session_id="s1") is not None
    files = artifact_service_from_url(f"sqlite:///{path}")
    loaded = await files.load_artifact(app_name=APP, user_id=USER, session_id="s1", filename="a.txt")
    assert loaded.text == "hello"
    await again.close()
    await files.close()


@pytest.mark.parametrize("service", [PostgresSessionService, PostgresArtifactService, PostgresMemoryService])
@pytest.mark.parametrize("url", ["sqlite:///x.db", "memory://", "mysql://db", ""])
def test_a_postgres_class_refuses_any_other_url(service, url, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InvalidArgumentError, match=f"{service.__name__} needs a postgresql:// URL"):
        service(url)
    assert os.listdir(tmp_path) == []  # nothing opened


async def test_the_postgres_classes_accept_a_driver_suffix(postgres_url):
    url = postgres_url.replace("postgresql://", "postgresql+asyncpg://", 1)
    sessions = PostgresSessionService(url)
    memory = PostgresMemoryService(url)
    await sessions.create_session(app_name=APP, user_id=USER, session_id="s1")
    assert [s.id for s in (await session_service_from_url(postgres_url).list_sessions(app_name=APP)).sessions] == ["s1"]
    await sessions.close()
    await memory.close()


async def test_each_from_url_gives_a_working_service_on_every_store(store_url):
    sessions = session_service_from_url(store_url)
    session = await sessions.create_session(app_name=APP, user_id=USER, session_id="s1")
    await sessions.append_event(session, Event(author="user", invocation_id="e-1",
                                               actions=EventActions(state_delta={"k": 1})))
    memory = memory_service_from_url(store_url)
    artifacts = artifact_service_from_url(store_url)
    version = await artifacts.save_artifact(app_name=APP, user_id=USER, session_id="s1", filename="a.txt",
                                            artifact=types.Part(text="x"))
    assert version == 0
    reread = await sessions.get_session(app_name=APP, user_id=USER, session_id="s1")
    assert reread.state == {"k": 1}
    for service in (sessions, memory, artifacts):
        await service.close()
