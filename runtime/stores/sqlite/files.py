"""The file a SQLite store URL names, and whether it may be written: what opening the store and
reading its catalog alone both decide (a module of its own: the catalog imports no store)."""

from __future__ import annotations

import os

from domain.errors import StoreError


def sqlite_path(url_or_path: str) -> str:
    if url_or_path.startswith("sqlite:///"):
        return url_or_path[len("sqlite:///"):] or ":memory:"
    if url_or_path.startswith("sqlite://"):
        raise StoreError(f"Bad SQLite URL {url_or_path!r}: use sqlite:///relative.db or sqlite:////abs/path.db")
    return url_or_path


def read_only_option(path: str) -> tuple[str, bool]:
    """``sqlite:///copy.db?mode=ro`` opens a store read-only (reads and audits; every write is
    refused with ReadOnlyStoreError)."""
    base, _, query = path.partition("?")
    if not query:
        return path, False
    if query != "mode=ro":
        raise StoreError(f"Unknown SQLite store option {query!r}: the one option is ?mode=ro (read-only).")
    return base, True


def not_writable(path: str) -> bool:
    """A store file, or its directory (where SQLite writes the -wal and -shm files), that may not
    be written: opened read-only, as an audit of a copy is. Marked read-only (no write bit, as
    ``chmod 0444`` leaves it) counts even for root, who could write it anyway."""
    return os.path.exists(path) and (marked_read_only(path) or marked_read_only(directory(path)))


def marked_read_only(path: str) -> bool:
    return not os.access(path, os.W_OK) or not os.stat(path).st_mode & 0o222


def directory(path: str) -> str:
    return os.path.dirname(os.path.abspath(path))
