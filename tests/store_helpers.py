"""The kinds of store the suite runs on, and a fresh store's URL of each (conftest's `store_url`, and
fixtures that add kinds of their own, such as test_artifacts' file:// store)."""

from __future__ import annotations

from typing import Any

STORE_KINDS = ["memory", "sqlite", "postgres"]


def fresh_store_url(request: Any, kind: str, tmp_path: Any) -> str:
    """The URL of a fresh store of one of the STORE_KINDS (in a fixture parametrized over them)."""
    if kind == "memory":
        return "memory://"
    if kind == "sqlite":
        return f"sqlite:///{tmp_path}/chronicle.db"
    return request.getfixturevalue("postgres_url")
