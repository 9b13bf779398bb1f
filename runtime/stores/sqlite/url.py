"""The file a ``sqlite:///`` URL names (a module of its own: the catalog reader needs it without the store)."""

from __future__ import annotations

from domain.errors import StoreError


def sqlite_path(url_or_path: str) -> str:
    if url_or_path.startswith("sqlite:///"):
        return url_or_path[len("sqlite:///"):] or ":memory:"
    if url_or_path.startswith("sqlite://"):
        raise StoreError(f"Bad SQLite URL {url_or_path!r}: use sqlite:///relative.db or sqlite:////abs/path.db")
    return url_or_path
