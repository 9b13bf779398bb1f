"""The memory services on every store: ranked search, isolation, growth, rewinds, rebuilds."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
from datetime import datetime

import pytest
from google.genai import types

from domain import Event, InvalidArgumentError
from runtime.memory import (
    InMemoryMemoryService,
    LogMemoryService,
    SqliteMemoryService,
    memory_service_from_url,
)
from projections.memory_text import stem, words
from runtime.sessions import InMemorySessionService, session_service_from_url

APP = "app"


@pytest.fixture
async def services(store_url):
    sessions = session_service_from_url(store_url)
    memory = LogMemoryService(sessions.store, ranking="bm25")  # these tests: the opt-in ranking
    yield sessions, memory
    await memory.close()
    await sessions.close()


def said(text: str, author: str = "user", invocation_id: str = "e-1") -> Event:
    role = "user" if author == "user" else "model"
    return Event(author=author, invocation_id=invocation_id, content=types.Content(role=role, parts=[types.Part(text=text)]))


async def conversation(sessions, user_id: str, session_id: str, lines: list[str], *, app_name: str = APP):
    session = await sessions.create_session(app_name=app_name, user_id=user_id, session_id=session_id)
    for i, line in enumerate(lines):
        await sessions.append_event(session, said(line, "user" if i % 2 == 0 else "model", f"e-{i // 2}"))
    return session


def texts(response) -> list[str]:
    return [m.content.parts[0].text for m in response.memories]


FACTS = [
    "My favourite colour is blue, like the sea at Brighton.",
    "Noted: your favourite colour is blue.",
    "I had pasta with mushrooms for dinner yesterday.",
    "Blue whales are the largest animals that ever lived.",
    "Remind me to book the dentist on Tuesday.",
    "Okay, a reminder for the dentist appointment on Tuesday.",
]


async def test_search_ranks_the_best_match_first(services):
    sessions, memory = services
    session = await conversation(sessions, "u1", "s1", FACTS)
    await memory.add_session_to_memory(session)
    found = await memory.search_memory(app_name=APP, user_id="u1", query="What is my favourite colour?")
    assert texts(found)[:2] == [FACTS[0], FACTS[1]] or texts(found)[:2] == [FACTS[1], FACTS[0]]
    assert FACTS[2] not in texts(found) and FACTS[4] not in texts(found)
    dentist = await memory.search_memory(app_name=APP, user_id="u1", query="when is the dentist appointment")
    assert texts(dentist)[0] == FACTS[5]  # both words match: best first
    assert FACTS[4] in texts(dentist)
    pasta = await memory.search_memory(app_name=APP, user_id="u1", query="dinner")
    assert texts(pasta) == [FACTS[2]]
    entry = pasta.memories[0]
    assert entry.author == "user" and entry.content.role == "user"
    assert datetime.fromisoformat(entry.timestamp).timestamp() == pytest.approx(session.events[2].timestamp)
    assert entry.id == session.events[2].id and entry.custom_metadata == {}  # as google-adk's


async def test_one_user_never_sees_another_users_memories(services):
    sessions, memory = services
    await memory.add_session_to_memory(await conversation(sessions, "alice", "s1", ["alice's secret is the violet door"]))
    await memory.add_session_to_memory(await conversation(sessions, "bob", "s1", ["bob's secret is the violet key"]))
    other_app = await conversation(sessions, "alice", "s9", ["the violet notebook"], app_name="other")
    await memory.add_session_to_memory(other_app)
    assert texts(await memory.search_memory(app_name=APP, user_id="alice", query="violet secret")) == [
        "alice's secret is the violet door"
    ]
    assert texts(await memory.search_memory(app_name=APP, user_id="bob", query="violet")) == ["bob's secret is the violet key"]
    assert texts(await memory.search_memory(app_name="other", user_id="alice", query="violet")) == ["the violet notebook"]
    assert texts(await memory.search_memory(app_name=APP, user_id="carol", query="violet")) == []


async def test_sessions_not_added_are_not_searchable(services):
    sessions, memory = services
    await conversation(sessions, "u1", "private", ["the launch code is swordfish"])
    added = await conversation(sessions, "u1", "public", ["the weather is sunny"])
    await memory.add_session_to_memory(added)
    assert texts(await memory.search_memory(app_name=APP, user_id="u1", query="swordfish launch")) == []


async def test_added_sessions_stay_searchable_as_they_grow(services):
    sessions, memory = services
    session = await conversation(sessions, "u1", "s1", ["I live in Lisbon"])
    await memory.add_session_to_memory(session)
    assert texts(await memory.search_memory(app_name=APP, user_id="u1", query="Lisbon")) == ["I live in Lisbon"]
    # no second add: the index follows the session's log
    await sessions.append_event(session, said("I moved to Porto last spring", invocation_id="e-2"))
    assert texts(await memory.search_memory(app_name=APP, user_id="u1", query="Porto")) == ["I moved to Porto last spring"]
    # adding again is harmless: nothing is indexed twice
    await memory.add_session_to_memory(session)
    found = await memory.search_memory(app_name=APP, user_id="u1", query="Lisbon Porto")
    assert sorted(texts(found)) == ["I live in Lisbon", "I moved to Porto last spring"]
    assert len(await memory.documents(app_name=APP, user_id="u1")) == 2


async def test_rewound_events_drop_out_and_a_rewound_rewind_brings_them_back(services):
    sessions, memory = services
    session = await sessions.create_session(app_name=APP, user_id="u1", session_id="s1")
    await sessions.append_event(session, said("my cat is called Miso", invocation_id="e-1"))
    await sessions.append_event(session, said("my dog is called Biscuit", invocation_id="e-2"))
    await sessions.append_event(session, said("Biscuit likes the park", author="model", invocation_id="e-2"))
    await memory.add_session_to_memory(session)
    assert len(texts(await memory.search_memory(app_name=APP, user_id="u1", query="Biscuit"))) == 2

    marker = await sessions.rewind_session(app_name=APP, user_id="u1", session_id="s1", rewind_before_invocation_id="e-2")
    assert texts(await memory.search_memory(app_name=APP, user_id="u1", query="Biscuit")) == []
    assert texts(await memory.search_memory(app_name=APP, user_id="u1", query="cat")) == ["my cat is called Miso"]
    docs = await memory.documents(app_name=APP, user_id="u1")
    assert [d.hidden for d in docs] == [False, True, True]  # kept, flagged: the log keeps them too

    await sessions.rewind_session(
        app_name=APP, user_id="u1", session_id="s1", rewind_before_invocation_id=marker.invocation_id
    )
    assert len(texts(await memory.search_memory(app_name=APP, user_id="u1", query="Biscuit"))) == 2


async def test_a_session_from_another_store_is_copied_once(tmp_path):
    sessions = InMemorySessionService()
    memory = SqliteMemoryService(str(tmp_path / "memory.db"))
    session = await conversation(sessions, "u1", "s1", ["I play the cello", "Lovely: the cello is a fine instrument"])
    await memory.add_session_to_memory(session)
    await memory.add_session_to_memory(session)
    assert len(texts(await memory.search_memory(app_name=APP, user_id="u1", query="cello"))) == 2
    # the session grew in its own store: adding it again copies only what is new
    await sessions.append_event(session, said("I also play the cello in a quartet", invocation_id="e-5"))
    await memory.add_session_to_memory(session)
    assert len(texts(await memory.search_memory(app_name=APP, user_id="u1", query="cello"))) == 3
    assert len(await memory.documents(app_name=APP, user_id="u1")) == 3
    await memory.close()
    # it is in the log: another service on the same file finds it
    again = memory_service_from_url(f"sqlite:///{tmp_path / 'memory.db'}")
    assert len(texts(await again.search_memory(app_name=APP, user_id="u1", query="quartet"))) == 1
    await again.close()
    await sessions.close()


async def test_in_memory_service_as_adk_users_wire_it():
    sessions, memory = InMemorySessionService(), InMemoryMemoryService()
    session = await conversation(sessions, "u1", "s1", ["The capital of Australia is Canberra"])
    await memory.add_session_to_memory(await sessions.get_session(app_name=APP, user_id="u1", session_id="s1"))
    assert texts(await memory.search_memory(app_name=APP, user_id="u1", query="australia capital")) == [
        "The capital of Australia is Canberra"
    ]
    assert session.id == "s1"


async def test_rebuilding_the_index_from_the_log_gives_the_live_index(services):
    sessions, memory = services
    s1 = await conversation(sessions, "u1", "s1", FACTS[:4])
    await memory.add_session_to_memory(s1)
    s2 = await conversation(sessions, "u2", "s2", FACTS[4:])
    await memory.add_session_to_memory(s2)
    await sessions.append_event(s1, said("one more thing about blue whales", invocation_id="e-9"))
    await sessions.rewind_session(app_name=APP, user_id="u1", session_id="s1", rewind_before_invocation_id="e-1")
    await memory.search_memory(app_name=APP, user_id="u1", query="blue")  # live catch-up
    await memory.search_memory(app_name=APP, user_id="u2", query="dentist")
    live = {u: await memory.documents(app_name=APP, user_id=u) for u in ("u1", "u2")}
    live_hits = texts(await memory.search_memory(app_name=APP, user_id="u1", query="blue whales colour"))
    assert await memory.rebuild() > 0
    rebuilt = {u: await memory.documents(app_name=APP, user_id=u) for u in ("u1", "u2")}
    assert rebuilt == live and len(live["u1"]) == 5 and sum(d.hidden for d in live["u1"]) == 3
    assert texts(await memory.search_memory(app_name=APP, user_id="u1", query="blue whales colour")) == live_hits


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
async def test_racing_catch_ups_index_each_event_once(kind, tmp_path, request):
    url = f"sqlite:///{tmp_path}/race.db" if kind == "sqlite" else request.getfixturevalue("postgres_url")
    sessions = session_service_from_url(url)
    a, b = memory_service_from_url(url), memory_service_from_url(url)
    session = await conversation(sessions, "u1", "s1", [f"note number {i} about gardening" for i in range(30)])
    await a.add_session_to_memory(session)
    for i in range(30, 60):
        await sessions.append_event(session, said(f"note number {i} about gardening", invocation_id=f"e-{i}"))
    await asyncio.gather(*(svc.search_memory(app_name=APP, user_id="u1", query="gardening") for svc in (a, b) * 4))
    docs = await a.documents(app_name=APP, user_id="u1")
    assert len(docs) == 60 and len({d.event_id for d in docs}) == 60
    for svc in (a, b, sessions):
        await svc.close()


async def test_another_process_appending_is_seen_by_the_next_search(tmp_path):
    url = f"sqlite:///{tmp_path}/shared.db"
    sessions = session_service_from_url(url)
    memory = memory_service_from_url(url, ranking="bm25")  # follows the session as it grows
    await memory.add_session_to_memory(await conversation(sessions, "u1", "s1", ["hello there"]))
    child = textwrap.dedent(
        f"""
        import asyncio
        from google.genai import types
        from domain import Event
        from runtime.sessions import session_service_from_url

        async def main():
            svc = session_service_from_url({url!r})
            s = await svc.get_session(app_name="app", user_id="u1", session_id="s1")
            await svc.append_event(s, Event(author="user", invocation_id="e-7",
                content=types.Content(role="user", parts=[types.Part(text="the child process remembers kiwis")])))
            await svc.close()

        asyncio.run(main())
        """
    )
    done = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert texts(await memory.search_memory(app_name=APP, user_id="u1", query="kiwis")) == ["the child process remembers kiwis"]
    await memory.close()
    await sessions.close()


async def test_queries_without_words_and_events_without_text_find_nothing(services):
    sessions, memory = services
    session = await sessions.create_session(app_name=APP, user_id="u1", session_id="s1")
    await sessions.append_event(session, Event(author="model", invocation_id="e-1", content=types.Content(
        role="model", parts=[types.Part(function_call=types.FunctionCall(name="lookup", args={"q": "x"}))])))
    await sessions.append_event(session, said("thinking aloud", author="model"))
    await memory.add_session_to_memory(session)
    assert texts(await memory.search_memory(app_name=APP, user_id="u1", query="")) == []
    assert texts(await memory.search_memory(app_name=APP, user_id="u1", query="the of and ?!")) == []
    assert texts(await memory.search_memory(app_name=APP, user_id="u1", query="lookup")) == []
    assert len(await memory.documents(app_name=APP, user_id="u1")) == 1


async def test_results_are_capped_and_bad_input_is_refused(store_url):
    sessions = session_service_from_url(store_url)
    memory = LogMemoryService(sessions.store, max_results=3)
    await memory.add_session_to_memory(await conversation(sessions, "u1", "s1", [f"apple number {i}" for i in range(8)]))
    assert len(texts(await memory.search_memory(app_name=APP, user_id="u1", query="apple"))) == 3
    with pytest.raises(InvalidArgumentError):
        await memory.search_memory(app_name="../x", user_id="u1", query="apple")
    with pytest.raises(InvalidArgumentError):
        await memory.add_session_to_memory({"id": "s1"})  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError):
        LogMemoryService(sessions.store, max_results=0)
    await sessions.close()


def test_the_in_memory_tokeniser():
    assert words("What's my FAVOURITE colour, 2 times?") == ["favourite", "colour", "2", "times"]
    assert stem("colours") == stem("colour") and stem("berries") == "berry" and stem("parked") == "park"


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
async def test_concurrent_adds_for_one_user_lose_no_session(kind, tmp_path, request):
    url = f"sqlite:///{tmp_path}/adds.db" if kind == "sqlite" else request.getfixturevalue("postgres_url")
    sessions = session_service_from_url(url)
    a, b = memory_service_from_url(url), memory_service_from_url(url)  # separate caches: real clashes
    made = [await conversation(sessions, "u1", f"s{i}", [f"topic number {i} is astronomy"]) for i in range(12)]
    await asyncio.gather(*((a if i % 2 else b).add_session_to_memory(s) for i, s in enumerate(made)))
    found = await a.search_memory(app_name=APP, user_id="u1", query="astronomy")
    assert len(await a.documents(app_name=APP, user_id="u1")) == 12 and len(found.memories) == 10
    for svc in (a, b, sessions):
        await svc.close()


async def test_many_rewound_matches_do_not_crowd_out_a_visible_one(store_url):
    sessions = session_service_from_url(store_url)
    memory = LogMemoryService(sessions.store, max_results=3)
    session = await sessions.create_session(app_name=APP, user_id="u1", session_id="s1")
    await sessions.append_event(session, said("a long walk with my dog Biscuit in the hills", invocation_id="e-1"))
    for i in range(30):
        await sessions.append_event(session, said(f"Biscuit Biscuit {i}", invocation_id="e-2"))
    await memory.add_session_to_memory(session)
    await sessions.rewind_session(app_name=APP, user_id="u1", session_id="s1", rewind_before_invocation_id="e-2")
    found = await memory.search_memory(app_name=APP, user_id="u1", query="biscuit")
    assert texts(found) == ["a long walk with my dog Biscuit in the hills"]
    await sessions.close()
