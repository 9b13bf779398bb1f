"""SQLite's own check of a store's files (``PRAGMA quick_check``): the store file and its blob
file, each through a read-only connection of its own, so that a file too damaged to open as a
store is still checked (``chronicle verify`` asks before it opens the store)."""

from __future__ import annotations

import os
import sqlite3
import urllib.parse
from contextlib import closing

from runtime.stores.sqlite.files import marked_read_only

RESTORE_HINT = "restore the store's files (chronicle.db* : the file, its -wal, -shm and -blobs) from a backup"


def file_problems(path: str) -> list[str]:
    """What SQLite finds wrong with the store file at ``path`` and its ``-blobs`` file; [] when whole."""
    return [problem for each in (path, path + "-blobs") if os.path.exists(each) for problem in _quick_check(each)]


def _quick_check(path: str) -> list[str]:
    name = os.path.basename(path)
    # As the read-only store opens it: in a directory not to be written, as immutable (mode=ro
    # would make the -shm file there).
    mode = "immutable=1" if marked_read_only(os.path.dirname(os.path.abspath(path))) else "mode=ro"
    try:
        with closing(sqlite3.connect(f"file:{urllib.parse.quote(path)}?{mode}", uri=True, timeout=30)) as db:
            rows = [row[0] for row in db.execute("PRAGMA quick_check(20)")]
    except sqlite3.DatabaseError as error:
        return [f"{name}: {' '.join(str(error).split())}"]
    return [] if rows == ["ok"] else [f"{name}: {' '.join(str(row).split())}" for row in rows]
