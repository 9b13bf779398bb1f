"""The embedded SQLite store: one file in WAL mode, on eventsourcing's SQLite recorder."""

from runtime.stores.sqlite.recorder import EVENTS_TABLE, SqliteLogRecorder
from runtime.stores.sqlite.store import SNAPSHOTS_TABLE, SqliteStore, open_sqlite_store, sqlite_path

__all__ = ["EVENTS_TABLE", "SNAPSHOTS_TABLE", "SqliteLogRecorder", "SqliteStore", "open_sqlite_store", "sqlite_path"]
