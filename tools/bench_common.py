"""Shared pieces of the benchmarks: stores to run on, medians, and a plain table."""

from __future__ import annotations

import contextlib
import statistics
import tempfile
import time
from typing import Iterator

from tools.pg_server import PgServer, start_postgres


def median(values: list[float]) -> float:
    return statistics.median(values)


class Stopwatch:
    def __enter__(self) -> "Stopwatch":
        self.start = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.seconds = time.perf_counter() - self.start


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


def print_table(title: str, headers: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(str(r[i])) for r in [headers, *rows]) for i in range(len(headers))]
    line = lambda cells: "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths)) + " |"  # noqa: E731
    out = [f"{title}", line(headers), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    out += [line(r) for r in rows]
    text = "\n".join(out)
    print(text)
    return text
