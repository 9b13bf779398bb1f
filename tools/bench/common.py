"""Shared pieces of the benchmarks: stores to run on, medians, and the table of results."""

from __future__ import annotations

import contextlib
import statistics
import tempfile
import time
from dataclasses import dataclass
from typing import Callable, Iterator

from tools.pg_server import PgServer, start_postgres


def median(values: list[float]) -> float:
    return statistics.median(values)


class Stopwatch:
    """Wall-clock seconds; `Stopwatch(time.process_time)` counts this process's CPU seconds instead
    (all its threads), which other jobs on a shared machine disturb far less."""

    def __init__(self, clock: Callable[[], float] = time.perf_counter) -> None:
        self.clock = clock

    def __enter__(self) -> "Stopwatch":
        self.start = self.clock()
        return self

    def __exit__(self, *exc: object) -> None:
        self.seconds = self.clock() - self.start

    def elapsed(self) -> float:
        """Seconds since the start, read while the watch runs."""
        return self.clock() - self.start


@contextlib.contextmanager
def bench_stores(kinds: list[str], postgres_url: str | None = None) -> Iterator["StoreFactory"]:
    """Yields a factory of fresh store URLs; starts PostgreSQL when asked and not given."""
    server: PgServer | None = None
    with tempfile.TemporaryDirectory(prefix="chronicle-bench-") as tmp:
        if "postgresql" in kinds and postgres_url is None:
            server = start_postgres()
        try:
            yield StoreFactory(tmp, server, postgres_url)
        finally:
            if server is not None:
                server.stop()


class StoreFactory:
    def __init__(self, tmp: str, server: PgServer | None, postgres_url: str | None):
        self.tmp, self.server, self.postgres_url, self.n = tmp, server, postgres_url, 0

    def fresh(self, kind: str) -> str:
        self.n += 1
        if kind == "memory":
            return "memory://"
        if kind == "sqlite":
            return f"sqlite:///{self.tmp}/bench{self.n}.db"
        if self.server is not None:
            return self.server.create_database(f"bench{self.n}")
        assert self.postgres_url is not None
        return self.postgres_url  # a given database is reused: bench ids are unique per run


@dataclass(frozen=True)
class Table:
    """A benchmark's figures: a title, column headers and rows of preformatted cells. The one
    place a bench's result is rendered, as aligned text for a terminal or as markdown for docs."""

    title: str
    headers: list[str]
    rows: list[list[str]]

    def text(self) -> str:
        widths = [max(len(str(r[i])) for r in [self.headers, *self.rows]) for i in range(len(self.headers))]
        line = lambda cells: "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths)) + " |"  # noqa: E731
        out = [self.title, line(self.headers), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
        return "\n".join(out + [line(r) for r in self.rows])

    def markdown(self) -> str:
        """The title in bold, a blank line, then a GitHub-flavoured table (cells' pipes escaped)."""
        cell = lambda c: str(c).replace("|", "\\|")  # noqa: E731
        line = lambda cells: "| " + " | ".join(cell(c) for c in cells) + " |"  # noqa: E731
        out = [f"**{self.title}**", "", line(self.headers), "|" + "|".join("---" for _ in self.headers) + "|"]
        return "\n".join(out + [line(r) for r in self.rows])
