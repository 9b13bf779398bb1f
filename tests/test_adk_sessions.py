"""ADK 2.13's session-service surface on Chronicle's stores: DatabaseSessionService and
SQLAlchemy-style URLs, get_user_state, the *_sync helpers, num_recent_events=0, user ids such
as "group/user123" (safe with the file artifact store), add_events_to_memory."""

from __future__ import annotations

import os

import pytest
from google.genai import types
from pydantic import ValidationError

from domain.errors import InvalidArgumentError
from domain.events import Event, EventActions
from runtime.artifacts import FileArtifactService, artifact_service_from_url
from runtime.memory import memory_service_from_url
from runtime.sessions import DatabaseSessionService, GetSessionConfig, session_service_from_url


def said(author: str, text: str, **kwargs) -> Event:
    return Event(invocation_id="inv", author=author,
                 content=types.Content(role="user" if author == "user" else "model", parts=[types.Part(text=text)]),
                 **kwargs)


def sqlalchemy_urls(tmp_path, postgres_url: str) -> list[str]:
    rest = postgres_url.split("://", 1)[1]
    return [f"sqlite+aiosqlite:///{tmp_path}/a.db", f"sqlite:///{tmp_path}/b.db",
            f"postgresql+asyncpg://{rest}", f"postgresql+psycopg://{rest}"]


async def test_database_session_service_takes_sqlalchemy_urls(tmp_path, postgres_url):
    for number, url in enumerate(sqlalchemy_urls(tmp_path, postgres_url)):
        service = DatabaseSessionService(url)
        session = await service.create_session(app_name="app", user_id="u", session_id=f"s{number}")
        await service.append_event(session, said("user", "hello"))
        await service.close()
        # The same store, reached by Chronicle's own URL and by session_service_from_url.
        plain = url.replace("+aiosqlite", "").replace("+asyncpg", "").replace("+psycopg", "")
        for again in (session_service_from_url(plain), session_service_from_url(url)):
            found = await again.get_session(app_name="app", user_id="u", session_id=session.id)
            assert [e.text() for e in found.events] == ["hello"]
            await again.close()
    with pytest.raises(InvalidArgumentError, match="pool_size"):
        DatabaseSessionService(f"sqlite:///{tmp_path}/c.db", pool_size=5)


async def test_get_user_state(store_url):
    service = session_service_from_url(store_url)
    session = await service.create_session(app_name="app", user_id="ann", session_id="s",
                                           state={"user:name": "Ann", "app:theme": "dark", "draft": 1})
    await service.append_event(session, said("agent", "hi", actions=EventActions(state_delta={"user:visits": 1})))
    await service.create_session(app_name="app", user_id="bob", state={"user:name": "Bob"})
    assert await service.get_user_state(app_name="app", user_id="ann") == {"name": "Ann", "visits": 1}
    assert await service.get_user_state(app_name="app", user_id="nobody") == {}
    assert await service.get_user_state(app_name="other", user_id="ann") == {}
    with pytest.raises(InvalidArgumentError):
        await service.get_user_state(app_name="app", user_id="../ann")
    await service.close()


def test_sync_helpers_without_an_event_loop(tmp_path):
    service = session_service_from_url(f"sqlite:///{tmp_path}/sync.db")
    session = service.create_session_sync(app_name="app", user_id="u", session_id="s", state={"k": 1})
    assert service.get_session_sync(app_name="app", user_id="u", session_id="s").state == {"k": 1}
    assert [s.id for s in service.list_sessions_sync(app_name="app", user_id="u").sessions] == [session.id]
    service.delete_session_sync(app_name="app", user_id="u", session_id="s")
    assert service.get_session_sync(app_name="app", user_id="u", session_id="s") is None


async def test_sync_helpers_work_inside_an_event_loop(store_url):
    """As in ADK (its test helpers call them from async tests): the call runs to its end."""
    service = session_service_from_url(store_url)
    session = service.create_session_sync(app_name="app", user_id="u", state={"k": 1})
    assert (await service.get_session(app_name="app", user_id="u", session_id=session.id)).state == {"k": 1}
    assert service.get_session_sync(app_name="app", user_id="u", session_id=session.id).state == {"k": 1}
    await service.close()


async def test_num_recent_events_zero_returns_no_events(store_url):
    service = session_service_from_url(store_url)
    session = await service.create_session(app_name="app", user_id="u", session_id="s")
    for text in ("one", "two", "three"):
        await service.append_event(session, said("user", text, actions=EventActions(state_delta={"last": text})))
    none = await service.get_session(app_name="app", user_id="u", session_id="s",
                                     config=GetSessionConfig(num_recent_events=0))
    assert none.events == [] and none.state == {"last": "three"}
    two = await service.get_session(app_name="app", user_id="u", session_id="s",
                                    config=GetSessionConfig(num_recent_events=2))
    assert [e.text() for e in two.events] == ["two", "three"]
    with pytest.raises(ValidationError):
        GetSessionConfig(num_recent_events=-1)
    await service.close()


async def test_user_ids_with_slashes_work_and_stay_apart(store_url):
    service = session_service_from_url(store_url)
    for user in ("group/user123", "group", "group/user1"):
        session = await service.create_session(app_name="app", user_id=user, session_id="team-s1",
                                               state={"user:who": user})
        await service.append_event(session, said("user", f"I am {user}"))
    found = await service.get_session(app_name="app", user_id="group/user123", session_id="team-s1")
    assert [e.text() for e in found.events] == ["I am group/user123"] and found.state["user:who"] == "group/user123"
    assert [s.user_id for s in (await service.list_sessions(app_name="app", user_id="group")).sessions] == ["group"]
    for bad in ("../x", "group/../x", "a//b", "/etc", "a/.", "x/"):
        with pytest.raises(InvalidArgumentError, match="Invalid user id"):
            await service.create_session(app_name="app", user_id=bad)
    await service.close()


async def test_the_file_artifact_store_keeps_every_user_inside_its_root(tmp_path):
    root = tmp_path / "artifacts"
    service = artifact_service_from_url(f"file://{root}")
    assert isinstance(service, FileArtifactService)
    part = types.Part.from_bytes(data=b"secret plan", mime_type="text/plain")
    await service.save_artifact(app_name="app", user_id="group/user123", session_id="s", filename="plan.txt",
                                artifact=part)
    for user in ("../x", "../../etc", "group/../../x"):
        with pytest.raises(InvalidArgumentError):
            await service.save_artifact(app_name="app", user_id=user, session_id="s", filename="plan.txt",
                                        artifact=part)
    loaded = await service.load_artifact(app_name="app", user_id="group/user123", session_id="s", filename="plan.txt")
    assert loaded.inline_data.data == b"secret plan"
    written = [os.path.join(d, f) for d, _, files in os.walk(tmp_path) for f in files]
    assert written and all(os.path.realpath(p).startswith(str(root.resolve()) + os.sep) for p in written)
    assert not any("group" in p or "user123" in p for p in written)  # ids never become paths
    await service.close()


async def test_add_events_to_memory(store_url):
    memory = memory_service_from_url(store_url)
    turn = [said("user", "my cat is called Miso"), said("agent", "Miso is a lovely name")]
    await memory.add_events_to_memory(app_name="app", user_id="group/ann", session_id="s1", events=turn)
    await memory.add_events_to_memory(app_name="app", user_id="group/ann", session_id="s1", events=turn)  # again
    await memory.add_events_to_memory(app_name="app", user_id="group/ann",
                                      events=[said("user", "I live in Lisbon")])  # no session
    found = await memory.search_memory(app_name="app", user_id="group/ann", query="Miso")
    assert sorted(m.content.parts[0].text for m in found.memories) == ["Miso is a lovely name", "my cat is called Miso"]
    assert [m.author for m in (await memory.search_memory(app_name="app", user_id="group/ann",
                                                          query="Lisbon")).memories] == ["user"]
    assert (await memory.search_memory(app_name="app", user_id="bob", query="Miso")).memories == []
    with pytest.raises(InvalidArgumentError):
        await memory.add_events_to_memory(app_name="app", user_id="ann", events=["not an event"])
    await memory.close()



async def test_artifact_references_work_for_group_users_and_stay_inside_the_user(store_url):
    service = artifact_service_from_url(store_url)
    mine = dict(app_name="app", user_id="group/user123", session_id="s")
    await service.save_artifact(**mine, filename="a.txt", artifact=types.Part(text="hello"))
    uri = (await service.get_artifact_version(**mine, filename="a.txt", version=0)).canonical_uri
    assert uri == "artifact://apps/app/users/group/user123/sessions/s/artifacts/a.txt/versions/0"
    await service.save_artifact(**mine, filename="b.txt", artifact=types.Part(file_data=types.FileData(file_uri=uri)))
    assert (await service.load_artifact(**mine, filename="b.txt")).text == "hello"
    for user, session in (("group", "s"), ("group/user1", "s"), ("group/user123", "other")):
        with pytest.raises(InvalidArgumentError, match="points"):
            await service.save_artifact(app_name="app", user_id=user, session_id=session, filename="c.txt",
                                        artifact=types.Part(file_data=types.FileData(file_uri=uri)))
    await service.close()


async def test_memories_cannot_be_written_directly_as_in_adks_own_services():
    memory = memory_service_from_url("memory://")
    with pytest.raises(NotImplementedError, match="add_events_to_memory"):
        await memory.add_memory(app_name="app", user_id="u", memories=[])
    await memory.close()
