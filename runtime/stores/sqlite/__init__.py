"""The embedded SQLite store: one file in WAL mode, on eventsourcing's SQLite recorder.

Names are imported on first use: the catalog reader (``runtime.stores.sqlite.catalog``) must not
import the store and its library."""

from domain.lazy_exports import lazy_exports

_lazy, __getattr__, __dir__ = lazy_exports(__name__, {
    "runtime.stores.sqlite.recorder": ["EVENTS_TABLE", "SqliteLogRecorder"],
    "runtime.stores.sqlite.store": ["SNAPSHOTS_TABLE", "SqliteStore", "open_sqlite_store"],
    "runtime.stores.sqlite.files": ["sqlite_path"],
})
__all__ = _lazy
