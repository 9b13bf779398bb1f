"""Stores, chosen by URL: memory://, sqlite:///path.db, postgresql://user@host:port/db
(SQLAlchemy-style URLs such as sqlite+aiosqlite:/// and postgresql+asyncpg:// are accepted too).

Each backend is a package here (``memory``, ``sqlite``, ``postgres``) implementing ``Store``
(runtime/stores/base.py); it is imported only when a store of its kind is opened. ``Store`` and its
rows are imported on first use too, so reading ``DEFAULT_STORE_URL`` (``chronicle --help``) costs nothing."""

from __future__ import annotations

import os
import re
import sys
from typing import Any, Callable, Protocol, TypeVar

from domain.errors import ChronicleError, InvalidArgumentError, StoreError
from domain.lazy_exports import lazy_exports

DEFAULT_STORE_URL = "sqlite:///./chronicle.db"


# SQLAlchemy names a database driver after a "+" (ADK's DatabaseSessionService URLs); Chronicle
# picks its own driver per store, so the suffix only needs removing.
_DRIVER_SUFFIX = re.compile(r"^(sqlite|postgresql|postgres)\+[a-z0-9_]+:")


def open_store(url: str | None = None) -> Store:
    url = _resolved(url)
    if url.startswith("memory:"):
        from runtime.stores.memory import open_memory_store

        return open_memory_store(url)
    if _is_sqlite(url):
        from runtime.stores.sqlite import open_sqlite_store

        return open_sqlite_store(url)
    if url.startswith(("postgresql:", "postgres:")):
        from runtime.stores.postgres import open_postgres_store

        return open_postgres_store(url)
    raise StoreError(
        f"Unknown store URL {url!r}: use memory://, sqlite:///path.db or postgresql://user@host:port/db"
    )


class Catalog(Protocol):
    """What ``open_catalog`` returns: a store, or a backend's session catalog alone."""

    @property
    def recorder(self) -> Any: ...  # what LogReader reads through

    def close(self) -> None: ...


def open_catalog(url: str | None = None) -> Catalog:
    """What ``LogReader``'s catalog reads (``sessions``, ``session``, ``apps``) need of the store a
    URL names: a SQLite file's or a PostgreSQL database's session catalog on a connection of its own
    that only reads, so that a command that only lists sessions starts without the store's library,
    pool and the session log's classes; the store itself, opened in full, where only the store can
    open it (memory://, a file or database without Chronicle's tables yet, a read-only file)."""
    resolved = _resolved(url)
    catalog: Catalog | None = None
    if _is_sqlite(resolved):
        from runtime.stores.sqlite.catalog import open_sqlite_catalog

        catalog = open_sqlite_catalog(resolved)
    elif resolved.startswith(("postgresql:", "postgres:")):
        from runtime.stores.postgres.catalog import open_postgres_catalog

        catalog = open_postgres_catalog(resolved)
    return catalog if catalog is not None else open_store(url)


S = TypeVar("S")


def service_from_url(url: str | None, build: Callable[[Store], S]) -> S:
    """A service (sessions, artifacts, memory, credentials) over the store a URL names, made by
    ``build(store)``: the service owns the store from then on (closing it closes the store), and a
    store whose service cannot be built is closed again. What each ``*_from_url`` is."""
    store = open_store(url)
    try:
        return build(store)
    except BaseException:
        store.close()
        raise


def sqlite_store(path_or_url: str) -> Store:
    """The SQLite store of a path, or of a sqlite URL (``sqlite:///app.db``, ``sqlite+aiosqlite:///app.db``
    as in ADK): what the ``Sqlite*Service`` classes open."""
    return open_store(path_or_url if path_or_url.startswith(("sqlite:", "sqlite+")) else f"sqlite:///{path_or_url}")


def postgres_store(url: str, *, needed_by: str) -> Store:
    """The PostgreSQL store of a postgresql:// URL, what the ``Postgres*Service`` classes open; any
    other URL: an InvalidArgumentError that names ``needed_by``."""
    if not _DRIVER_SUFFIX.sub(r"\1:", url).startswith(("postgresql:", "postgres:")):
        raise InvalidArgumentError(f"{needed_by} needs a postgresql:// URL, got {url!r}")
    return open_store(url)


def check_reachable(url: str | None = None) -> None:
    """Where the store is a server, connects once, quickly, so an unreachable one is reported with
    its real reason: a StoreError caused by the driver's error (one without a cause: the URL itself
    is wrong). A file or memory store has nothing to reach."""
    url = _resolved(url)
    if url.startswith(("postgresql:", "postgres:")):
        from runtime.stores.postgres import check_postgres_reachable

        check_postgres_reachable(url)


def file_integrity(url: str | None = None) -> tuple[list[str], str]:
    """For a store kept in files (SQLite): the database's own check of them, made without opening
    the store (a damaged file may not open), and what to restore; ([], "") for any other store,
    whose ``Store.integrity_problems`` says."""
    url = _resolved(url)
    if _is_sqlite(url):
        from runtime.stores.sqlite import sqlite_path
        from runtime.stores.sqlite.integrity import RESTORE_HINT, file_problems

        path = sqlite_path(url).split("?", 1)[0]  # an option such as ?mode=ro is not part of the name
        return (file_problems(path), RESTORE_HINT) if path not in ("", ":memory:") else ([], "")
    return [], ""


def typed_error(error: BaseException) -> StoreError | None:
    """``Store.typed_error`` for an error raised outside a store's ``call`` (the operations the
    command line runs synchronously): asks the backends opened in this process."""
    if isinstance(error, ChronicleError):
        return None
    for name in ("sqlite", "postgres"):
        module = sys.modules.get(f"runtime.stores.{name}.errors")
        typed = module.driver_error(error) if module is not None else None
        if typed is not None:
            return typed
    from runtime.stores.base import library_error

    return library_error(error)


def _is_sqlite(url: str) -> bool:
    """A resolved URL names a SQLite store: sqlite:…, :memory: or a bare file path."""
    return url.startswith("sqlite:") or "://" not in url


def _resolved(url: str | None) -> str:
    url = url or os.environ.get("CHRONICLE_STORE") or DEFAULT_STORE_URL
    return _DRIVER_SUFFIX.sub(r"\1:", url)


_lazy, __getattr__, __dir__ = lazy_exports(__name__, {"runtime.stores.base": ["CatalogRow", "SideRows", "Store"]})
__all__ = [
    *_lazy, "Catalog", "DEFAULT_STORE_URL", "StoreError", "check_reachable", "open_catalog", "open_store", "postgres_store", "service_from_url",
    "sqlite_store", "typed_error",
]
