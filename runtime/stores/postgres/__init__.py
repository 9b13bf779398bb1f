"""The PostgreSQL store: eventsourcing's recorder on a psycopg 3 pool, shared by many processes.

Names are imported on first use: reaching the server and reading the session catalog alone
(``connect``, ``catalog``) must not import the store and its library."""

from domain.lazy_exports import lazy_exports

_lazy, __getattr__, __dir__ = lazy_exports(__name__, {
    "runtime.stores.postgres.recorder": ["EVENTS_TABLE", "PostgresLogRecorder"],
    "runtime.stores.postgres.store": ["SNAPSHOTS_TABLE", "PostgresStore", "open_postgres_store"],
    "runtime.stores.postgres.connect": ["check_postgres_reachable", "parse_postgres_url"],
})
__all__ = _lazy
