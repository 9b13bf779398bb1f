"""`ProjectionStorage.search` answers a page at a time (runtime/stores/projection_storage.py): the
views whose searched text holds a text, in search order (the fold's order, then key), from a
cursor, at most a limit — on every store, whichever way the store finds them (SQLite reads its
texts in order, then asks its trigram index for a rare text; PostgreSQL lets its planner choose).

The pages, read one after another from any cursor, must join up to exactly what a plain filter
and sort of every stored text gives."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from runtime.stores import open_store
from runtime.stores.projection_storage import Batch
from runtime.stores.sqlite import read_models as sqlite_read_models

WORDS = ["fox", "fo", "dog", "50%", "a_b", "émile", "\\x", "kettle"]
ORDERS = [-1.7e9, -2.5, -1.0, 0.0, 3.25]  # few: many views share one, and are ordered by key
KEY_CHARS = "aBz_é-/9"  # upper before lower, and beyond ASCII: keys compare as Python compares them

rows = st.dictionaries(
    st.text(KEY_CHARS, min_size=1, max_size=4),
    st.tuples(st.lists(st.sampled_from(WORDS), max_size=4).map(" ".join), st.sampled_from(ORDERS)),
    max_size=25,
)
_names = itertools.count()


@pytest.fixture
def storage(store_url, monkeypatch):
    # SQLite reads this many texts in order before it asks its index: few, so that small stores
    # take both ways
    monkeypatch.setattr(sqlite_read_models, "_READ_IN_ORDER", 3)
    store = open_store(store_url)
    yield store.projection_storage()
    store.close()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows, st.sampled_from(WORDS + ["o", "zzz"]), st.none() | st.frozensets(st.text(KEY_CHARS, min_size=1, max_size=4)),
       st.integers(1, 6), st.none() | st.tuples(st.sampled_from(ORDERS), st.text(KEY_CHARS, max_size=4)))
def test_pages_read_from_any_cursor_join_up_to_every_match_in_search_order(storage, rows, text, keys, limit, start):
    name = f"p{next(_names)}"  # a projection of its own per example, in the one store
    storage.commit(name, 0, 1, Batch(views={("f", k): "{}" for k in rows},
                                     search={("f", k): (t, o) for k, (t, o) in rows.items()}))
    expected = sorted((o, k) for k, (t, o) in rows.items()
                      if text in t and (keys is None or k in keys) and (start is None or (o, k) > start))
    among = None if keys is None else sorted(keys)
    pages, after = [], start
    while True:
        page = storage.search(name, "f", text, among, after=after, limit=limit)
        assert len(page) <= limit
        pages.append(page)
        if len(page) < limit:
            break
        after = page[-1]
    assert [tuple(mark) for page in pages for mark in page] == expected
    assert storage.search(name, "other fold", text, among, limit=limit) == []


def test_a_view_whose_order_moves_is_found_at_its_new_place_once(storage):
    name = f"p{next(_names)}"
    storage.commit(name, 0, 1, Batch(search={("f", "a"): ("fox", -1.0), ("f", "b"): ("fox", -2.0)}))
    assert storage.search(name, "f", "fox", limit=5) == [(-2.0, "b"), (-1.0, "a")]
    storage.commit(name, 1, 2, Batch(search={("f", "a"): ("fox", -3.0)}))  # "a" updated since: first now
    assert storage.search(name, "f", "fox", limit=5) == [(-3.0, "a"), (-2.0, "b")]
    storage.commit(name, 2, 3, Batch(search={("f", "b"): ("no longer", -4.0)}))
    assert storage.search(name, "f", "fox", limit=5) == [(-3.0, "a")]
    storage.drop(name)
    assert storage.search(name, "f", "fox", limit=5) == []


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])  # a store kept between processes
def test_texts_stored_before_they_had_an_order_are_searched_once_the_store_is_opened(kind, request):
    """A store made by an older Chronicle has a search table without the order column: opening
    it adds the column; a read-only copy, which cannot, finds nothing stored (its searched folds
    were never stored in order) rather than failing."""
    store_url = request.getfixturevalue(f"{kind}_url")
    store = open_store(store_url)
    store.projection_storage()
    store.close()
    _as_before_the_order(store_url)
    if store_url.startswith("sqlite"):
        read_only = open_store(store_url + "?mode=ro")
        try:
            assert read_only.projection_storage().search("p", "f", "fox", limit=5) == []
        finally:
            read_only.close()
    store = open_store(store_url)
    try:
        storage = store.projection_storage()
        storage.commit("p", 0, 1, Batch(search={("f", "a"): ("fox", -1.0), ("f", "b"): ("fox", -2.0)}))
        assert storage.search("p", "f", "fox", limit=5) == [(-2.0, "b"), (-1.0, "a")]
    finally:
        store.close()


def _as_before_the_order(url: str) -> None:
    drop = ["DROP INDEX chronicle_projection_search_order", "ALTER TABLE chronicle_projection_search DROP COLUMN sort_key"]
    if url.startswith("sqlite"):
        import sqlite3

        with sqlite3.connect(url.removeprefix("sqlite:///")) as db:
            for statement in drop:
                db.execute(statement)
    else:
        import psycopg

        with psycopg.connect(url, autocommit=True) as conn:
            for statement in drop:
                conn.execute(statement)


def test_postgresql_orders_keys_as_python_does_whatever_the_database_s_collation(pg_server, monkeypatch):
    import psycopg

    name = f"icu_{next(_names)}"
    try:  # a database whose text sorts by language rules ('B' after 'a', '-' and '_' nearly ignored)
        with psycopg.connect(pg_server.url(), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name} TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en' LOCALE 'C'")
    except psycopg.Error as error:
        pytest.skip(f"this PostgreSQL has no ICU collations: {error}")
    store = open_store(pg_server.url(name))
    try:
        storage = store.projection_storage()
        keys = ["a-c", "a_b", "aB", "ab", "a/b", "é", "Z", "z"]
        storage.commit("p", 0, 1, Batch(search={("f", k): ("fox", 0.0) for k in keys}))
        found, after = [], None
        while page := storage.search("p", "f", "fox", after=after, limit=3):
            found += page
            after = page[-1]
        assert [k for _, k in found] == sorted(keys)
    finally:
        store.close()
        pg_server.drop_database(name)
