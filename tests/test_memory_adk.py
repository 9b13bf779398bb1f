"""The default memory search is google-adk 2.13's (InMemoryMemoryService's), on every store:
matching by shared words, most shared first, ties in the order remembered, each session as it
was when last added, entries with ADK's fields only. BM25 is the opt-in `ranking="bm25"`."""

from __future__ import annotations

from datetime import datetime

import pytest

from domain.errors import InvalidArgumentError
from runtime.memory import LogMemoryService
from runtime.sessions import InMemorySessionService, session_service_from_url
from tests.test_memory import APP, conversation, said, texts


@pytest.fixture
async def services(store_url):
    sessions = session_service_from_url(store_url)
    memory = LogMemoryService(sessions.store)
    yield sessions, memory
    await memory.close()
    await sessions.close()


async def search(memory, query: str, user_id: str = "u1"):
    return await memory.search_memory(app_name=APP, user_id=user_id, query=query)


async def test_most_shared_words_first_and_ties_in_the_order_remembered(services):
    sessions, memory = services
    await memory.add_session_to_memory(await conversation(sessions, "u1", "s2", ["we walk the dog", "the dog sleeps"]))
    await memory.add_session_to_memory(await conversation(sessions, "u1", "s1", ["dog", "walk walk walk the dog daily"]))
    found = await search(memory, "Dog walk")
    # Both words: s2's first line, then s1's second (s2 was added first); one word: in order.
    assert texts(found) == ["we walk the dog", "walk walk walk the dog daily", "the dog sleeps", "dog"]
    assert texts(await search(memory, "the")) == ["we walk the dog", "the dog sleeps", "walk walk walk the dog daily"]
    assert texts(await search(memory, "dogs")) == []  # whole words only, no stemming


async def test_entries_have_google_adks_fields_and_time_form(services):
    sessions, memory = services
    session = await conversation(sessions, "u1", "s1", ["pasta for dinner"])
    await memory.add_session_to_memory(session)
    entry = (await search(memory, "dinner")).memories[0]
    assert entry.custom_metadata == {} and entry.id == session.events[0].id and entry.author == "user"
    assert entry.timestamp == datetime.fromtimestamp(session.events[0].timestamp).isoformat()


async def test_a_session_is_searched_as_it_was_when_last_added(services):
    sessions, memory = services
    session = await conversation(sessions, "u1", "s1", ["apples are red"])
    await memory.add_session_to_memory(session)
    await sessions.append_event(session, said("apples are green too", invocation_id="e-9"))
    assert texts(await search(memory, "apples")) == ["apples are red"]
    await memory.add_session_to_memory(session)
    assert texts(await search(memory, "apples")) == ["apples are red", "apples are green too"]


async def test_rewound_events_and_other_users_are_never_found(services):
    sessions, memory = services
    session = await conversation(sessions, "u1", "s1", ["kiwi one"])
    await sessions.append_event(session, said("kiwi two", invocation_id="e-2"))
    await memory.add_session_to_memory(session)
    await memory.add_session_to_memory(await conversation(sessions, "u2", "s1", ["kiwi of u2"]))
    await sessions.rewind_session(app_name=APP, user_id="u1", session_id="s1", rewind_before_invocation_id="e-2")
    assert texts(await search(memory, "kiwi")) == ["kiwi one"]


async def test_at_most_ten_and_bm25_is_an_option(services):
    sessions, memory = services
    await memory.add_session_to_memory(await conversation(sessions, "u1", "s1", [f"plum number {i}" for i in range(12)]))
    assert texts(await search(memory, "plum")) == [f"plum number {i}" for i in range(10)]
    bm25 = LogMemoryService(sessions.store, ranking="bm25")
    assert len(texts(await search(bm25, "plums"))) == 10  # BM25 stems: plums finds plum
    with pytest.raises(InvalidArgumentError, match="ranking must be one of adk, bm25"):
        LogMemoryService(sessions.store, ranking="best")


async def test_a_session_of_another_store_is_copied_and_ranked_the_same_way(services):
    _, memory = services
    other = InMemorySessionService()
    await memory.add_session_to_memory(await conversation(other, "u1", "s1", ["red fox", "red fox jumps"]))
    await memory.add_events_to_memory(app_name=APP, user_id="u1", events=[said("the fox jumps red", invocation_id="e-5")])
    assert texts(await search(memory, "red fox jumps")) == ["red fox jumps", "the fox jumps red", "red fox"]
