"""Stock google-adk agents through ADK's own Runner on the bridge, over every store: what ADK
sees, and what Chronicle's own services read from the same log."""

from __future__ import annotations

import asyncio

import pytest
from google.adk.apps._configs import EventsCompactionConfig
from google.adk.apps.llm_event_summarizer import LlmEventSummarizer
from google.adk.errors import StaleSessionError as AdkStaleSessionError
from google.adk.events._rewind_events import _apply_rewinds
from google.genai import types

from domain.errors import StaleSessionError
from domain.session_log import session_log_id
from runtime.sessions import session_service_from_url
from runtime.sessions.verify import verify_log
from tests.adk_bridge.helpers import APP, FakeLlm, Shop


async def test_a_conversation_is_stored_as_adk_wrote_it(store_url):
    shop = Shop(store_url)
    await shop.sessions.create_session(app_name=APP, user_id="ann", session_id="s1", state={"tier": "gold"})
    seen = []
    for message in ("hello", "add lamp", "add desk"):
        seen += await shop.turn("ann", "s1", message)
    session = await shop.sessions.get_session(app_name=APP, user_id="ann", session_id="s1")
    assert [e.id for e in session.events if e.author != "user"] == [e.id for e in seen]
    assert [e.model_dump() for e in session.events if e.author != "user"] == [e.model_dump() for e in seen]
    assert session.state == {"tier": "gold", "cart": ["lamp", "desk"], "user:last_item": "desk", "app:adds": 2}
    # temp: was seen by the running invocation only.
    assert all("temp:scratch" not in e.actions.state_delta for e in session.events)
    part = await shop.artifacts.load_artifact(app_name=APP, user_id="ann", session_id="s1", filename="receipt.txt")
    assert part.text == "receipt: lamp, desk"
    assert await shop.artifacts.list_versions(app_name=APP, user_id="ann", session_id="s1",
                                              filename="receipt.txt") == [0, 1]

    # Chronicle's own service reads the same log, and its chain holds.
    chronicle = session_service_from_url(store_url) if store_url != "memory://" else shop.sessions.sessions
    same = await chronicle.get_session(app_name=APP, user_id="ann", session_id="s1")
    assert [e.id for e in same.events] == [e.id for e in session.events] and same.state == session.state
    assert verify_log(shop.sessions.store, session_log_id(APP, "ann", "s1")) is None
    # A new session of the same user sees user: and app: state.
    other = await shop.sessions.create_session(app_name=APP, user_id="ann", session_id="s2")
    assert other.state == {"user:last_item": "desk", "app:adds": 2}
    await shop.close()


async def test_adks_rewind_restores_state_initial_state_and_files(store_url):
    shop = Shop(store_url)
    await shop.sessions.create_session(app_name=APP, user_id="ann", session_id="s1", state={"tier": "gold"})
    await shop.turn("ann", "s1", "add lamp")
    await shop.turn("ann", "s1", "add desk")
    await shop.turn("ann", "s1", "add chair")
    session = await shop.sessions.get_session(app_name=APP, user_id="ann", session_id="s1")
    second = [e.invocation_id for e in session.events if e.author == "user"][1]

    await shop.runner.rewind_async(user_id="ann", session_id="s1", rewind_before_invocation_id=second)

    after = await shop.sessions.get_session(app_name=APP, user_id="ann", session_id="s1")
    # The initial state stays (ADK's own services drop it); app:/user: state is shared, not rolled back.
    assert after.state == {"tier": "gold", "cart": ["lamp"], "user:last_item": "chair", "app:adds": 3}
    assert after.events[-1].actions.rewind_before_invocation_id == second
    # What ADK's model sees (ADK's own rule for live events): the rewound turns are gone.
    assert second not in {e.invocation_id for e in _apply_rewinds(after.events)}
    part = await shop.artifacts.load_artifact(app_name=APP, user_id="ann", session_id="s1", filename="receipt.txt")
    assert part.text == "receipt: lamp"

    # The model no longer sees the rewound turns, and the next turn goes on from the restored state.
    await shop.turn("ann", "s1", "add bed")
    final = await shop.sessions.get_session(app_name=APP, user_id="ann", session_id="s1")
    assert final.state["cart"] == ["lamp", "bed"]
    assert verify_log(shop.sessions.store, session_log_id(APP, "ann", "s1")) is None
    await shop.close()


async def test_a_rewind_removes_files_created_after_the_point(store_url):
    shop = Shop(store_url)
    await shop.sessions.create_session(app_name=APP, user_id="ann", session_id="s1")
    await shop.turn("ann", "s1", "hello")
    await shop.turn("ann", "s1", "add lamp")
    session = await shop.sessions.get_session(app_name=APP, user_id="ann", session_id="s1")
    await shop.runner.rewind_async(user_id="ann", session_id="s1",
                                   rewind_before_invocation_id=session.events[-1].invocation_id)
    assert await shop.artifacts.load_artifact(app_name=APP, user_id="ann", session_id="s1",
                                              filename="receipt.txt") is None
    after = await shop.sessions.get_session(app_name=APP, user_id="ann", session_id="s1")
    assert "cart" not in after.state
    await shop.close()


async def test_a_paused_invocation_resumes_from_the_log(store_url):
    shop = Shop(store_url, resumable=True)
    await shop.sessions.create_session(app_name=APP, user_id="ann", session_id="s1")
    paused = await shop.turn("ann", "s1", "approve laptop")
    call = next(e for e in paused if e.long_running_tool_ids).get_function_calls()[0]
    invocation = paused[0].invocation_id

    # Another runner (another process, on a shared store) answers it, reading only the log.
    later = shop if store_url == "memory://" else Shop(store_url, resumable=True)
    later.runner = type(shop.runner)(app=later.app, session_service=later.sessions,
                                     artifact_service=later.artifacts, memory_service=later.memory)
    answer = types.Content(role="user", parts=[types.Part(function_response=types.FunctionResponse(
        id=call.id, name=call.name, response={"status": "approved"}))])
    resumed = await later.turn("ann", "s1", answer, invocation_id=invocation)
    assert [e.content.parts[0].text for e in resumed if e.content] == ["done: ask_approval {'status': 'approved'}"]
    assert all(e.invocation_id == invocation for e in resumed) and resumed[-1].actions.end_of_agent
    session = await later.sessions.get_session(app_name=APP, user_id="ann", session_id="s1")
    assert [e.invocation_id for e in session.events] == [invocation] * len(session.events)
    assert session.events[-1].actions.end_of_agent
    if later is not shop:
        await later.close()
    await shop.close()


async def test_compaction_summaries_are_stored_and_used(store_url):
    summarizer = LlmEventSummarizer(llm=FakeLlm())
    shop = Shop(store_url, events_compaction_config=EventsCompactionConfig(
        summarizer=summarizer, compaction_interval=2, overlap_size=0))
    await shop.sessions.create_session(app_name=APP, user_id="ann", session_id="s1")
    for message in ("one", "two", "three"):
        await shop.turn("ann", "s1", message)
    session = await shop.sessions.get_session(app_name=APP, user_id="ann", session_id="s1")
    compactions = [e.actions.compaction for e in session.events if e.actions.compaction]
    assert len(compactions) == 1
    assert compactions[0].start_timestamp <= compactions[0].end_timestamp and compactions[0].compacted_content.parts
    await shop.close()


async def test_concurrent_runs_on_one_session_never_interleave(shared_store_url):
    one, two = Shop(shared_store_url), Shop(shared_store_url)
    await one.sessions.create_session(app_name=APP, user_id="ann", session_id="s1")
    results = await asyncio.gather(one.turn("ann", "s1", "add lamp"), two.turn("ann", "s1", "add desk"),
                                   return_exceptions=True)
    failures = [r for r in results if isinstance(r, Exception)]
    assert failures, "two writers on one session: one must be told it is stale"
    assert all(isinstance(f, AdkStaleSessionError) and isinstance(f, StaleSessionError) for f in failures)
    session = await one.sessions.get_session(app_name=APP, user_id="ann", session_id="s1")
    invocations = [e.invocation_id for e in session.events]
    # Each invocation's events are contiguous: no interleaving.
    assert invocations == sorted(invocations, key=invocations.index)
    runs = [list(dict.fromkeys(invocations))]
    assert len(runs[0]) == len(results) - len(failures)
    await one.close()
    await two.close()
