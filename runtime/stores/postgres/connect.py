"""Reaching a PostgreSQL server a store URL names: its connection parameters, and one quick
connection (a module of its own: the session catalog connects without the store's pool and library)."""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote, urlparse

import psycopg

from domain.errors import StoreError


def parse_postgres_url(url: str) -> dict[str, Any]:
    parsed = urlparse(url)
    if parsed.scheme not in ("postgresql", "postgres") or not parsed.path.strip("/"):
        raise StoreError(f"Bad PostgreSQL URL {url!r}: use postgresql://user[:password]@host[:port]/dbname")
    return {
        "dbname": unquote(parsed.path.lstrip("/")),
        "host": parsed.hostname or "localhost",
        "port": parsed.port or 5432,
        "user": unquote(parsed.username or "postgres"),
        "password": unquote(parsed.password or ""),
    }


def check_postgres_reachable(url: str) -> None:
    """Connects once, quickly, so an unreachable server is reported with its real reason (the
    pool would only say it timed out): a StoreError caused by the driver's error."""
    params = parse_postgres_url(url)
    try:
        psycopg.connect(**params, connect_timeout=5).close()
    except psycopg.Error as e:
        raise StoreError(f"Cannot connect to PostgreSQL: {e}") from e
