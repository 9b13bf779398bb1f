"""The sessions read model (runtime.read_models.sessions): what the viewer's sessions page, its search and
filters, and every open-request reader answer from — folded once, followed by position, on every store.

It must agree with the sessions' logs (their timelines), page with a cursor that survives appends, see
what another writer appended, and stay right across rewinds, their undoing, forks and deletions."""

from __future__ import annotations

import asyncio
import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from google.genai import types

from domain.events import Event
from projections.base import fold_events
from projections.session_summary import SESSION_SUMMARIES, SUMMARIES, TEXTS, searched_text
from runtime.log_reader import LogReader
from runtime.read_models.follower import runner_for
from runtime.read_models.sessions import SessionIndex, SessionQuery
from runtime.read_models.source import LogSource
from runtime.sessions.service import LogSessionService
from runtime.stores import open_store
from domain.errors import InvalidArgumentError


def _said(invocation: str, author: str, text: str, ts: float) -> Event:
    role = "user" if author == "user" else "model"
    return Event(invocation_id=invocation, author=author, timestamp=ts,
                 content=types.Content(role=role, parts=[types.Part(text=text)]))


def _ask(invocation: str, call_id: str, ts: float) -> Event:
    call = types.FunctionCall(id=call_id, name="adk_request_input", args={"message": "Which day?"})
    return Event(invocation_id=invocation, author="clerk", timestamp=ts, long_running_tool_ids={call_id},
                 content=types.Content(role="model", parts=[types.Part(function_call=call)]))


def _answer(invocation: str, call_id: str, ts: float) -> Event:
    reply = types.FunctionResponse(id=call_id, name="adk_request_input", response={"answer": "Monday"})
    return Event(invocation_id=invocation, author="user", timestamp=ts,
                 content=types.Content(role="user", parts=[types.Part(function_response=reply)]))


async def _session(service: LogSessionService, user: str, sid: str, events: list[Event], app: str = "shop"):
    session = await service.create_session(app_name=app, user_id=user, session_id=sid)
    for event in events:
        await service.append_event(session, event)
    return session


@pytest.fixture
def store(store_url):
    opened = open_store(store_url)
    yield opened
    opened.close()


def _run(coroutine):
    return asyncio.run(coroutine)


def _ids(rows):
    return [r["session_id"] for r in rows]


def test_pages_follow_the_log_newest_first_with_a_cursor(store, store_url):
    service = LogSessionService(store)

    async def build():
        for n in range(7):
            await _session(service, f"u{n % 2}", f"s{n}", [_said(f"i{n}", "user", f"hello {n} teapot" if n == 3 else f"hi {n}", 1000.0 + n)])
    _run(build())
    index = SessionIndex.of(store)
    pages, cursor = [], None
    while True:
        page, cursor = index.page(SessionQuery(limit=3, after=cursor))
        pages.append(_ids(page))
        if cursor is None:
            break
    assert pages == [["s6", "s5", "s4"], ["s3", "s2", "s1"], ["s0"]]

    # a cursor survives appends: a session updated meanwhile moves to the front, the next page goes on
    first, cursor = index.page(SessionQuery(limit=3))
    _run(_session(service, "u0", "s7", [_said("i7", "user", "later", 2000.0)]))
    rest, _ = index.page(SessionQuery(limit=10, after=cursor))
    assert _ids(rest) == ["s3", "s2", "s1", "s0"]
    assert _ids(index.page(SessionQuery(limit=1))[0]) == ["s7"]

    # filters and search
    assert _ids(index.page(SessionQuery(user_id="u1"))[0]) == ["s5", "s3", "s1"]
    assert _ids(index.page(SessionQuery(users={"u1"}, text="TEAPOT"))[0]) == ["s3"]
    found = index.page(SessionQuery(text="teapot"))[0]
    assert [(r["session_id"], r["match"]) for r in found] == [("s3", "hello 3 teapot")]
    assert [r["match"] for r in index.page(SessionQuery(text="S6"))[0]] == ["s6"]  # the id is searched too
    assert index.page(SessionQuery(app_name="other"))[0] == []
    assert _ids(index.page(SessionQuery(session_id="s2"))[0]) == ["s2"]
    assert index.page(SessionQuery(session_id="s2", user_id="u1"))[0] == []
    assert _ids(index.page(SessionQuery(since=1005.0))[0]) == ["s7", "s6", "s5"]
    # a session written after the texts were gathered for searching is searched too
    _run(_session(service, "u1", "s8", [_said("i8", "user", "another TEAPOT", 3000.0)]))
    assert _ids(index.page(SessionQuery(text="teapot"))[0]) == ["s8", "s3"]
    with pytest.raises(InvalidArgumentError):
        index.page(SessionQuery(after="not a cursor"))
    with pytest.raises(InvalidArgumentError):
        SessionQuery(status="sleeping")


def test_summaries_agree_with_each_log_across_rewinds_forks_and_deletions(store):
    service = LogSessionService(store)

    async def build():
        s = await _session(service, "ann", "a", [_said("i1", "user", "book a room", 10.0), _ask("i1", "c1", 11.0)])
        await service.rewind_session(app_name="shop", user_id="ann", session_id="a", rewind_before_invocation_id="i1")
        await _session(service, "ann", "b", [_said("i1", "user", "pay", 20.0), _ask("i1", "c2", 21.0)])
        await service.fork_session(app_name="shop", user_id="ann", session_id="b", new_session_id="b-fork")
        await _session(service, "ann", "gone", [_said("i1", "user", "bye", 30.0)])
        await service.delete_session(app_name="shop", user_id="ann", session_id="gone")
        return s
    _run(build())
    index = SessionIndex.of(store)
    rows = {r["session_id"]: r for r in index.page(SessionQuery())[0]}
    assert rows["a"]["status"] == ["rewound"] and rows["a"]["pending"] == 0 and rows["a"]["rewinds"] == 1
    assert rows["b"]["status"] == ["waiting", "forked_into"] and rows["b"]["forks"] == ["b-fork"]
    assert rows["b-fork"]["forked_from"]["source_session_id"] == "b"
    assert rows["gone"]["status"] == ["deleted"]
    assert _ids(index.page(SessionQuery(status="waiting"))[0]) == ["b-fork", "b"]
    reader = LogReader(store)
    for sid, row in rows.items():
        catalog = reader.session("shop", "ann", sid)
        assert (row["updated"], row["version"], row["deleted"]) == (catalog.last_update_time, catalog.version, catalog.deleted)
        assert row["first_text"] == next(e.content.parts[0].text for e in reader.events(catalog, live=False) if e.content)

    # undoing the rewind opens its request again, for the index and for every reader through LogReader
    async def undo():
        session = await service.get_session(app_name="shop", user_id="ann", session_id="a")
        marker = session.events[-1].invocation_id
        await service.rewind_session(app_name="shop", user_id="ann", session_id="a", rewind_before_invocation_id=marker)
    _run(undo())
    assert list(reader.open_requests(reader.session("shop", "ann", "a"))) == ["c1"]
    assert index.summary("shop", "ann", "a")["status"] == ["waiting", "rewound"]
    assert [(r.session_id, q.call_id) for r, q in reader.pending("shop")] == [("a", "c1"), ("b", "c2"), ("b-fork", "c2")]

    # answered: closed everywhere; made once, so `ever_requested` still knows it
    async def answer():
        session = await service.get_session(app_name="shop", user_id="ann", session_id="b")
        await service.append_event(session, _answer("i2", "c2", 40.0))
    _run(answer())
    assert reader.open_requests(reader.session("shop", "ann", "b")) == {}
    assert reader.ever_requested(reader.session("shop", "ann", "b"), "c2")

    # the stored rows are the fold of the whole log, and a rebuild gives them again
    follower = runner_for(store, SESSION_SUMMARIES)
    follower.catch_up()
    events, _ = LogSource(store).read(0, 100_000)
    reference = {vid: view for vid, view in fold_events(SESSION_SUMMARIES, events).items()}
    assert follower.views() == reference
    follower.rebuild()
    assert follower.views() == reference


def test_another_writer_is_seen_and_a_rebuild_reloads(store, store_url):
    if store_url == "memory://":
        other = store  # one process holds a memory store: the second writer is another service on it
    else:
        other = open_store(store_url)
    index = SessionIndex.of(store)
    assert index.page(SessionQuery())[0] == []
    _run(_session(LogSessionService(other), "bob", "x", [_said("i1", "user", "from elsewhere", 5.0)]))
    assert _ids(index.page(SessionQuery())[0]) == ["x"]
    runner_for(store, SESSION_SUMMARIES).rebuild()  # a new epoch: the index reloads what is stored
    assert _ids(index.page(SessionQuery(user_id="bob"))[0]) == ["x"]
    if other is not store:
        other.close()


def test_history_comes_in_windows_that_join_up_to_the_whole(store):
    from runtime.operations.history import history_pages, load_history, window

    service = LogSessionService(store)

    async def build():
        events = []
        for n in range(6):
            events += [_said(f"i{n}", "user", f"q{n}", 10.0 + n), _said(f"i{n}", "bot", f"a{n}", 10.5 + n)]
        await _session(service, "ann", "long", events)
        await service.rewind_session(app_name="shop", user_id="ann", session_id="long", rewind_before_invocation_id="i4")
    _run(build())
    row = LogReader(store).session("shop", "ann", "long")
    whole = load_history(store, row)
    newest = window(row, 4)
    assert (newest.first, newest.last, newest.earlier, newest.later) == (11, 14, 11, None)
    page = load_history(store, row, within=newest)
    assert [s.version for inv in page.timeline.invocations for s in inv.steps] == [11, 12, 13, 14]
    assert [inv.rewound for inv in page.timeline.invocations] == [True, True, False]  # i4 (its second half), i5; the marker
    assert page.timeline.session_id == "long" and page.timeline.created == row.created_time
    assert [m.version for m in page.rewinds] == [14]
    older = window(row, 4, before=newest.earlier)
    assert (older.first, older.last, older.earlier, older.later) == (7, 10, 7, 10)
    assert window(row, 4, after=2).first == 3

    # the CLI's pages end where an invocation ends, and together they are the whole history
    pages = list(history_pages(store, row, size=5))
    assert len(pages) > 2
    joined = [(inv.invocation_id, [s.version for s in inv.steps], inv.rewound)
              for p in pages for inv in p.timeline.invocations]
    assert joined == [(inv.invocation_id, [s.version for s in inv.steps], inv.rewound)
                      for inv in whole.timeline.invocations]
    assert [m.version for p in pages for m in p.rewinds] == [m.version for m in whole.rewinds]


def test_the_cli_finds_a_session_by_its_id_alone(store):
    from tools.cli.commands.common import CliError, find_session

    service = LogSessionService(store)

    async def build():
        await _session(service, "ann", "s1", [])
        await _session(service, "bob", "s1", [], app="desk")
        await _session(service, "ann", "only", [])
    _run(build())
    assert (find_session(store, "only").app_name, find_session(store, "only").user_id) == ("shop", "ann")
    assert find_session(store, "s1", "desk").user_id == "bob"
    with pytest.raises(CliError, match="used by 2 sessions"):
        find_session(store, "s1")
    with pytest.raises(CliError, match="Did you mean: only"):
        find_session(store, "onyl")


def test_a_read_only_copy_is_searched_and_its_requests_read_without_writing(tmp_path):
    url = f"sqlite:///{tmp_path}/chronicle.db"
    store = open_store(url)
    _run(_session(LogSessionService(store), "ann", "a", [_said("i1", "user", "book", 1.0), _ask("i1", "c1", 2.0)]))
    store.close()
    copy = open_store(url + "?mode=ro")
    writer = open_store(url)
    try:
        index = SessionIndex.of(copy)
        assert _ids(index.page(SessionQuery(text="book"))[0]) == ["a"]
        reader = LogReader(copy)
        assert [(r.session_id, q.call_id) for r, q in reader.pending()] == [("a", "c1")]

        # another process writes and nobody catches the stored rows up: the copy, which cannot,
        # searches the stored texts and those of the sessions written since, folded from the log
        service = LogSessionService(writer)
        for n in range(8):
            _run(_session(service, f"u{n}", f"other{n}", [_said("i1", "user", f"book {n}", 10.0 + n)]))
        _run(_session(service, "ann", "b", [_said("i1", "user", "Book again", 30.0)]))
        stored, _ = runner_for(writer, SESSION_SUMMARIES).storage.state(SESSION_SUMMARIES.name)
        assert stored < LogSource(writer).max_position()
        assert _ids(index.page(SessionQuery(text="book", user_id="ann"))[0]) == ["b", "a"]
        found = index.page(SessionQuery(text="BOOK"))[0]
        assert _ids(found) == _found_in_the_log(writer, "book") == ["b", *(f"other{n}" for n in range(7, -1, -1)), "a"]
        assert found[0]["match"] == "Book again"
    finally:
        writer.close()
        copy.close()


def _call(invocation: str, name: str, args: dict, ts: float) -> Event:
    call = types.FunctionCall(id=f"{invocation}-{name}", name=name, args=args)
    return Event(invocation_id=invocation, author="bot", timestamp=ts,
                 content=types.Content(role="model", parts=[types.Part(function_call=call)]))


def _found_in_the_log(store, text: str, user: str | None = None, since: float | None = None) -> list[str]:
    """What a search must find, folded here from the whole log: the sessions whose id or searched
    texts hold the text (of the user, updated since, when told), newest update first."""
    events, _ = LogSource(store).read(0, 1_000_000)
    views = fold_events(SESSION_SUMMARIES, events)
    found = []
    for (fold, key), summary in views.items():
        if fold != SUMMARIES or (user is not None and summary["user_id"] != user):
            continue
        if since is not None and summary["updated"] < since:
            continue
        if text in summary["session_id"].lower() or text in searched_text(views[(TEXTS, key)]):
            found.append((-summary["updated"], key, summary["session_id"]))
    return [sid for _, _, sid in sorted(found)]


def test_search_answers_what_the_log_holds_across_appends_rewinds_forks_and_rebuilds(store, store_url):
    service = LogSessionService(store)

    async def build():
        for n in range(12):
            await _session(service, f"u{n % 6}", f"s{n}", [
                _said(f"i{n}", "user", f"Émile asks about KETTLE {n}" if n % 3 == 0 else f"plain {n}: 100% off_now", 100.0 + n),
                _call(f"i{n}", "weather", {"city": "Paris" if n % 4 == 0 else "Oslo"}, 100.5 + n),
            ])
    _run(build())
    index = SessionIndex.of(store)
    # the last ones hold what SQL patterns would read as wildcards: found (or not) as written
    queries = ["kettle", "émile", 'weather({"city": "paris"})', "s1", "plain 1", "oslo", "nowhere", "e 9", "0% off_", "1_0", "1%"]

    def agree():
        for text in queries:
            assert _ids(index.page(SessionQuery(text=text.upper()))[0]) == _found_in_the_log(store, text), text
            for user in ("u0", "u1"):  # a user's search looks among that user's sessions only
                found = index.page(SessionQuery(user_id=user, text=text))[0]
                assert _ids(found) == _found_in_the_log(store, text, user), (text, user)
                assert all(r["match"] and text in r["match"].lower() for r in found)
    agree()

    async def change():
        s1 = await service.get_session(app_name="shop", user_id="u1", session_id="s1")
        await service.append_event(s1, _said("j1", "bot", "a kettle whistles", 500.0))
        await service.rewind_session(app_name="shop", user_id="u0", session_id="s0", rewind_before_invocation_id="i0")
        await service.fork_session(app_name="shop", user_id="u3", session_id="s3", new_session_id="s3-fork")
        await service.delete_session(app_name="shop", user_id="u5", session_id="s5")
        await _session(service, "u0", "late", [_said("k1", "user", "a late kettle", 600.0)])
    _run(change())
    agree()
    assert [r["match"] for r in index.page(SessionQuery(user_id="u1", text="whistles"))[0]] == ["a kettle whistles"]
    runner = runner_for(store, SESSION_SUMMARIES)
    runner.catch_up()
    live = runner.storage.search(SESSION_SUMMARIES.name, TEXTS, "", limit=1000)  # every text, in order
    runner.rebuild()  # the texts are a projection: rebuilt from the log alike, with their order
    assert runner.storage.search(SESSION_SUMMARIES.name, TEXTS, "", limit=1000) == live and len(live) == 14
    agree()
    if store_url.startswith("sqlite"):  # the trigram index followed its table through updates and deletions
        import sqlite3

        with sqlite3.connect(store_url.removeprefix("sqlite:///")) as db:
            db.execute("INSERT INTO chronicle_projection_search_fts (chronicle_projection_search_fts, rank)"
                       " VALUES ('integrity-check', 1)")  # against its table's rows (malformed: raises)


def test_search_answers_as_of_the_index_position_whoever_caught_the_stored_rows_up(store):
    service = LogSessionService(store)
    _run(_session(service, "ann", "old", [_said("i1", "user", "stored kettle", 1.0)]))
    behind = SessionIndex(store)
    assert _ids(behind.page(SessionQuery())[0]) == ["old"]  # summaries loaded; no texts yet
    # the index follows the log past the stored rows (nothing caught them up): the stored texts
    # are behind it, and the events in between are folded into them
    _run(_session(service, "ann", "mid", [_said("i1", "user", "followed kettle", 2.0)]))
    assert _ids(behind.page(SessionQuery(text="kettle"))[0]) == ["mid", "old"]

    ahead = SessionIndex(store)
    assert _ids(ahead.page(SessionQuery())[0]) == ["mid", "old"]
    # the stored rows move past the index (another process catching up): it follows the log to them first
    _run(_session(service, "ann", "new", [_said("i1", "user", "caught-up kettle", 3.0)]))
    runner_for(store, SESSION_SUMMARIES).catch_up()
    assert _ids(ahead.page(SessionQuery(text="kettle"))[0]) == ["new", "mid", "old"]
    assert _ids(ahead.page(SessionQuery(text="followed"))[0]) == ["mid"]


def test_postgresql_searches_through_a_trigram_index_where_pg_trgm_is_installed(postgres_url):
    import psycopg

    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    store = open_store(postgres_url)
    try:
        service = LogSessionService(store)
        for n in range(30):
            _run(_session(service, f"u{n % 3}", f"s{n}", [_said("i1", "user", f"order {n}: 50% off_{n}", 1.0 + n)]))
        assert _ids(SessionIndex.of(store).page(SessionQuery(text="50% OFF_7"))[0]) == ["s7"]
        assert _ids(SessionIndex.of(store).page(SessionQuery(text="5_%", user_id="u0"))[0]) == []
        with psycopg.connect(postgres_url) as conn:
            indexes = [r[0] for r in conn.execute(
                "SELECT indexname FROM pg_indexes WHERE tablename = 'chronicle_projection_search'")]
        assert "chronicle_projection_search_trgm" in indexes
    finally:
        store.close()


def test_a_sqlite_file_whose_texts_were_stored_without_the_trigram_index_is_searched_all_the_same(tmp_path):
    import sqlite3

    url = f"sqlite:///{tmp_path}/chronicle.db"
    store = open_store(url)
    _run(_session(LogSessionService(store), "ann", "a", [_said("i1", "user", "a copper kettle", 1.0)]))
    runner_for(store, SESSION_SUMMARIES).catch_up()
    store.close()
    with sqlite3.connect(f"{tmp_path}/chronicle.db") as db:  # as a SQLite without FTS5 trigrams left it
        db.execute("DROP TABLE chronicle_projection_search_fts")
    read_only = open_store(url + "?mode=ro")  # cannot add the index: scans the texts
    try:
        assert _ids(SessionIndex.of(read_only).page(SessionQuery(text="copper"))[0]) == ["a"]
    finally:
        read_only.close()
    store = open_store(url)  # adds the index, over the texts already stored
    try:
        assert _ids(SessionIndex.of(store).page(SessionQuery(text="copper"))[0]) == ["a"]
        assert store.projection_storage()._trigrams
    finally:
        store.close()


_examples = itertools.count()
_WORDS = ["fox", "kettle", "paris", "50%", "x_y"]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(["u0", "u1", "u2"]), st.sampled_from(["fox", "x_y", "plain"]),
                          st.lists(st.tuples(st.sampled_from(_WORDS), st.sampled_from([5.0, 6.0, 7.5])), max_size=3)),
                min_size=1, max_size=6),
       st.sampled_from(_WORDS + ["e1", "zzz"]), st.none() | st.sampled_from(["u0", "u1"]), st.integers(1, 3),
       st.none() | st.sampled_from([6.0, 7.5]))
def test_a_search_read_page_by_page_finds_what_the_log_holds_in_page_order(store, sessions, text, user, limit, since):
    """Whatever the store holds (sessions of several users, some updated at one time, words in
    their ids and texts), a search read a page at a time from the cursors it gives finds, in page
    order, exactly the sessions the log says hold the text; a user's, among that user's; those
    updated since a time, when asked."""
    service, n = LogSessionService(store), next(_examples)

    async def build():
        for i, (user_id, word, said) in enumerate(sessions):
            await _session(service, user_id, f"e{n}-{word}-{i}",
                           [_said(f"i{i}", "user", f"{w} {i}", ts) for w, ts in said])
    _run(build())
    index = SessionIndex.of(store)
    found, cursor = [], None
    expected = _found_in_the_log(store, text, user, since)
    for _ in range(len(expected) + 1):  # the pages end
        page, cursor = index.page(SessionQuery(text=text.upper(), user_id=user, limit=limit, after=cursor, since=since))
        assert len(page) <= limit and all(text in row["match"].lower() for row in page)
        found += _ids(page)
        if cursor is None:
            break
    assert found == expected
    whole, cursor = index.page(SessionQuery(text=text, user_id=user, limit=1000, since=since))
    assert _ids(whole) == found and cursor is None  # one page of them all: the same, in the same order
