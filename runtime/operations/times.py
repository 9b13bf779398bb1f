"""The one time format of exports and the command line (a module of its own, so the command line can
use it without importing what an export needs)."""

from __future__ import annotations

import datetime as _dt


def utc(ts: float | None, *, seconds: bool = True) -> str:
    """A timestamp as ``YYYY-MM-DD HH:MM:SS`` in UTC (the command line's one time zone)."""
    if ts is None:
        return "–"
    fmt = "%Y-%m-%d %H:%M:%S" if seconds else "%Y-%m-%d %H:%M"
    return _dt.datetime.fromtimestamp(ts, _dt.timezone.utc).strftime(fmt)
