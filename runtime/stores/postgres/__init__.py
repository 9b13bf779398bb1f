"""The PostgreSQL store: eventsourcing's recorder on a psycopg 3 pool, shared by many processes."""

from runtime.stores.postgres.recorder import EVENTS_TABLE, PostgresLogRecorder
from runtime.stores.postgres.store import (
    SNAPSHOTS_TABLE,
    PostgresStore,
    check_postgres_reachable,
    open_postgres_store,
    parse_postgres_url,
)

__all__ = [
    "EVENTS_TABLE", "SNAPSHOTS_TABLE", "PostgresLogRecorder", "PostgresStore", "check_postgres_reachable",
    "open_postgres_store", "parse_postgres_url",
]
