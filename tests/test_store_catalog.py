"""A store's session catalog read alone (``runtime.stores.open_catalog``, what `chronicle sessions`
opens), on SQLite and PostgreSQL: the same rows as the store's own reads, commits made after it
opened included, and the store itself wherever only the store can open the file or database."""

from __future__ import annotations

import os
import sqlite3

import pytest

from runtime import session_service_from_url
from runtime.log_reader import LogReader
from runtime.stores import open_catalog, open_store
from runtime.stores.postgres.catalog import PostgresCatalog
from runtime.stores.sqlite.catalog import SqliteCatalog

CATALOGS = {"sqlite": SqliteCatalog, "postgres": PostgresCatalog}


async def _sessions(url: str) -> None:
    service = session_service_from_url(url)
    for app, user, session_id in (("a", "ann", "s1"), ("a", "bob", "s2"), ("b", "ann", "s1"), ("a", "ann", "gone")):
        await service.create_session(app_name=app, user_id=user, session_id=session_id, state={"k": session_id})
    await service.delete_session(app_name="a", user_id="ann", session_id="gone")
    await service.close()


@pytest.mark.parametrize("kind", list(CATALOGS))
async def test_the_catalog_alone_reads_what_the_store_reads(kind, request, tmp_path):
    url = f"sqlite:///{tmp_path}/s.db" if kind == "sqlite" else request.getfixturevalue("postgres_url")
    await _sessions(url)
    catalog, store = open_catalog(url), open_store(url)
    try:
        assert isinstance(catalog, CATALOGS[kind])
        alone, full = LogReader(catalog), LogReader(store)
        for app, user, session_id in [(None, None, None), ("a", None, None), ("a", "ann", None), (None, "ann", None),
                                      (None, None, "s1"), ("a", None, "s1"), ("nope", None, None)]:
            assert alone.sessions(app, user, session_id=session_id) == full.sessions(app, user, session_id=session_id)
        assert [r.session_id for r in alone.sessions("a", "ann", deleted=False)] == ["s1"]
        gone = alone.session("a", "ann", "gone")
        assert gone == full.session("a", "ann", "gone") and gone.deleted and gone.state == {"k": "gone"}
        assert alone.session("a", "ann", "never") is None and alone.apps() == ["a", "b"]

        writer = session_service_from_url(url)  # a commit after the catalog opened is read
        await writer.create_session(app_name="c", user_id="cy", session_id="new")
        await writer.close()
        assert [r.session_id for r in alone.sessions("c")] == ["new"]
    finally:
        catalog.close()
        store.close()


async def test_only_the_store_opens_what_is_not_a_store_file_yet(tmp_path):
    """A new empty file, another program's database, ``?mode=ro`` and memory:// open the store itself,
    as before: the catalog alone never creates Chronicle's tables nor chooses a read-only mode."""
    empty = tmp_path / "empty.db"
    empty.touch()
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE notes (text TEXT)")
    await _sessions(f"sqlite:///{tmp_path}/s.db")
    for url in (f"sqlite:///{empty}", f"sqlite:///{other}", f"sqlite:///{tmp_path}/s.db?mode=ro", "memory://"):
        opened = open_catalog(url)
        try:
            assert not isinstance(opened, SqliteCatalog), url
            assert LogReader(opened).sessions() == ([] if "s.db" not in url else LogReader(opened).sessions())
        finally:
            opened.close()
    copy = tmp_path / "copy.db"  # marked read-only: the store opens it read-only (or as immutable)
    copy.write_bytes((tmp_path / "s.db").read_bytes())
    copy.chmod(0o444)
    for url in (f"sqlite:///{tmp_path}/s.db?mode=ro", f"sqlite:///{copy}"):
        opened = open_catalog(url)
        try:
            assert not isinstance(opened, SqliteCatalog) and opened.read_only, url
            assert len(LogReader(opened).sessions()) == 4
        finally:
            opened.close()


def test_a_database_without_chronicles_tables_opens_the_store(pg_server):
    """The store makes its schema there, as before; the catalog alone would make nothing."""
    url = pg_server.create_database(f"catalog_{os.getpid()}")
    try:
        opened = open_catalog(url)
        try:
            assert not isinstance(opened, PostgresCatalog) and LogReader(opened).sessions() == []
        finally:
            opened.close()
        again = open_catalog(url)  # the schema is there now
        assert isinstance(again, PostgresCatalog) and LogReader(again).sessions() == []
        again.close()
    finally:
        pg_server.drop_database(url.rsplit("/", 1)[1])


def test_the_catalog_leaves_the_files_as_they_were(tmp_path):
    path = tmp_path / "s.db"
    import asyncio

    asyncio.run(_sessions(f"sqlite:///{path}"))
    before = os.stat(path).st_mtime_ns, sorted(os.listdir(tmp_path))
    catalog = open_catalog(str(path))
    assert isinstance(catalog, SqliteCatalog) and len(LogReader(catalog).sessions()) == 4
    catalog.close()
    assert (os.stat(path).st_mtime_ns, sorted(os.listdir(tmp_path))) == before
