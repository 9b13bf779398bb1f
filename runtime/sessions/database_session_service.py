"""DatabaseSessionService: ADK's name for a session service chosen by a database URL."""

from __future__ import annotations

from typing import Any

from domain.errors import InvalidArgumentError
from runtime.sessions.service import LogSessionService
from runtime.stores import open_store


class DatabaseSessionService(LogSessionService):
    """Sessions in the store a SQLAlchemy-style URL names: ``sqlite+aiosqlite:///app.db``,
    ``sqlite:///app.db``, ``postgresql+asyncpg://user@host/db``, ``postgresql+psycopg://…``.

    ADK passes ``**kwargs`` to SQLAlchemy's engine; Chronicle's stores hold their own
    connections (SQLite in WAL mode, a psycopg pool), so engine options are refused rather
    than silently ignored."""

    def __init__(self, db_url: str, **kwargs: Any):
        if kwargs:
            raise InvalidArgumentError(
                f"DatabaseSessionService takes no engine options here ({', '.join(sorted(kwargs))}): "
                "Chronicle's stores manage their own connections. Pass only the database URL."
            )
        super().__init__(open_store(db_url))

    async def __aenter__(self) -> DatabaseSessionService:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        """`async with DatabaseSessionService(url) as service:` closes it at the end, as in ADK."""
        await self.close()
