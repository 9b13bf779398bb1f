"""`chronicle bench artifacts`: the artifact and memory services' figures (issue 6's workload).

* save and load of 1 MiB artifacts (distinct random bytes, 4 filenames in one session), one
  writer, in MB/s; and saves with 4 in flight at once;
* memory search over 100,000 indexed events (one user's memory: 100 sessions of 1,000 events of
  ~20 words drawn from a 5,000-word vocabulary with a Zipf distribution, so some words are
  common and most are rare): the median and p95 latency of 3-word queries, catch-up included.

Each figure is the median of several runs.
"""

from __future__ import annotations

import asyncio
import os
import random
import shutil
import statistics
import time
import uuid

from google.genai import types

from domain import Event, Session
from runtime.artifacts import artifact_service_from_url
from runtime.memory import memory_service_from_url
from tools.bench.common import Stopwatch, Table, bench_stores, median

KINDS = ["memory", "sqlite", "file", "postgresql"]
MIB = 1 << 20


# -- artifacts ---------------------------------------------------------------------------------


async def _artifact_run(url: str, n: int) -> tuple[float, float, float]:
    """(save MB/s, load MB/s, save MB/s with 4 in flight) for n distinct 1 MiB artifacts."""
    svc = artifact_service_from_url(url)
    app = f"bench_{uuid.uuid4().hex[:8]}"
    parts = [types.Part.from_bytes(data=os.urandom(MIB), mime_type="application/octet-stream") for _ in range(n)]

    async def save(i: int, part: types.Part, session_id: str = "s1") -> int:
        return await svc.save_artifact(
            app_name=app, user_id="u", session_id=session_id, filename=f"file{i % 4}.bin", artifact=part
        )

    with Stopwatch() as sw:
        for i, part in enumerate(parts):
            await save(i, part)
    save_rate = n / sw.seconds
    with Stopwatch() as sw:
        for i in range(n):
            part = await svc.load_artifact(
                app_name=app, user_id="u", session_id="s1", filename=f"file{i % 4}.bin", version=i // 4
            )
            assert part is not None and len(part.inline_data.data) == MIB
    load_rate = n / sw.seconds
    fresh = [types.Part.from_bytes(data=os.urandom(MIB), mime_type="application/octet-stream") for _ in range(n)]
    in_flight = asyncio.Semaphore(4)

    async def limited(i: int, part: types.Part) -> int:
        async with in_flight:
            return await save(i, part, "s2")

    with Stopwatch() as sw:
        await asyncio.gather(*(limited(i, p) for i, p in enumerate(fresh)))
    concurrent_rate = n / sw.seconds
    await svc.close()
    return save_rate, load_rate, concurrent_rate


# -- memory ------------------------------------------------------------------------------------


class _Vocabulary:
    def __init__(self, size: int = 5000, seed: int = 6):
        rng = random.Random(seed)
        letters = "bcdfghjklmnprstvwz"
        vowels = "aeiou"
        words: set[str] = set()
        while len(words) < size:
            words.add("".join(rng.choice(letters) + rng.choice(vowels) for _ in range(rng.randint(2, 4))))
        self.words = sorted(words)
        self.weights = [1 / (rank + 1) for rank in range(size)]  # Zipf
        self.rng = rng

    def sentence(self, n: int) -> str:
        return " ".join(self.rng.choices(self.words, self.weights, k=n))

    def query(self) -> str:
        # words a user would search for: not the 50 most common, not the rarest
        return " ".join(self.rng.choice(self.words[50:2000]) for _ in range(3))


def _session(app: str, user: str, session_id: str, vocabulary: _Vocabulary, n: int) -> Session:
    start = time.time() - n
    events = [
        Event(
            author="user" if i % 2 == 0 else "model",
            invocation_id=f"e-{i // 2}",
            timestamp=start + i,
            content=types.Content(
                role="user" if i % 2 == 0 else "model", parts=[types.Part(text=vocabulary.sentence(20))]
            ),
        )
        for i in range(n)
    ]
    return Session(id=session_id, app_name=app, user_id=user, events=events)


async def _memory_run(
    url: str, total: int, per_session: int, queries: int, ranking: str = "bm25"
) -> tuple[float, float, float, float]:
    """(index rate events/s, median search ms, p95 search ms, median results) over `total` events,
    ranked by the store's full-text search (ranking="bm25", the figures docs/benchmarks.md gives) or
    by google-adk's word matching (ranking="adk", the default, which reads the user's memory)."""
    svc = memory_service_from_url(url, ranking=ranking)
    app = f"bench_{uuid.uuid4().hex[:8]}"
    vocabulary = _Vocabulary()
    with Stopwatch() as sw:
        for s in range(total // per_session):
            await svc.add_session_to_memory(_session(app, "u", f"s{s}", vocabulary, per_session))
    index_rate = total / sw.seconds
    # another user, so isolation costs what it costs in production
    await svc.add_session_to_memory(_session(app, "other", "s0", vocabulary, per_session))
    times, hits = [], []
    for _ in range(queries):
        query = vocabulary.query()
        with Stopwatch() as sw:
            found = await svc.search_memory(app_name=app, user_id="u", query=query)
        times.append(sw.seconds * 1000)
        hits.append(len(found.memories))
    await svc.close()
    times.sort()
    return index_rate, median(times), times[int(len(times) * 0.95) - 1], statistics.median(hits)


async def run_async(
    kinds: list[str], *, runs: int = 3, quick: bool = False, postgres_url: str | None = None
) -> Table:
    n_artifacts = 16 if quick else 64
    total, per_session, queries = (10_000, 1_000, 50) if quick else (100_000, 1_000, 200)
    results: dict[str, dict[str, str]] = {k: {} for k in kinds}
    with bench_stores(kinds, postgres_url) as stores:
        for kind in kinds:
            r = results[kind]
            saves, loads, concurrent = [], [], []
            for _ in range(runs):
                if kind == "file":
                    stores.n += 1
                    root = os.path.join(stores.tmp, f"files{stores.n}")
                    url = f"file://{root}"
                else:
                    url = stores.fresh(kind)
                s, l, c = await _artifact_run(url, n_artifacts)
                saves.append(s)
                loads.append(l)
                concurrent.append(c)
                if kind == "file":
                    shutil.rmtree(root, ignore_errors=True)
            r["save"] = f"{median(saves):,.0f} MB/s"
            r["load"] = f"{median(loads):,.0f} MB/s"
            r["save4"] = f"{median(concurrent):,.0f} MB/s"
            if kind == "file":
                continue  # FileArtifactService has no memory service
            index_rates, medians, p95s = [], [], []
            for _ in range(runs if not quick else 1):
                rate, med, p95, hits = await _memory_run(stores.fresh(kind), total, per_session, queries)
                index_rates.append(rate)
                medians.append(med)
                p95s.append(p95)
            r["index"] = f"{median(index_rates):,.0f} ev/s"
            r["search"] = f"{median(medians):.2f} ms"
            r["search95"] = f"{median(p95s):.2f} ms"
            r["hits"] = f"{hits:.0f}"
    rows_spec = [
        ("save", f"save 1 MiB artifacts, one writer ({n_artifacts} saves)", "≥200 MB/s SQLite, file"),
        ("load", "load them back (hash checked)", "≥200 MB/s SQLite, file"),
        ("save4", "save 1 MiB artifacts, 4 in flight", "–"),
        ("index", f"index {total:,} events into one user's memory", "–"),
        ("search", f"search_memory over {total:,} indexed events, median", "≤20 ms"),
        ("search95", f"search_memory over {total:,} indexed events, p95", "–"),
        ("hits", "results per query (capped at 10)", "–"),
    ]
    headers = ["measure", *kinds, "target"]
    rows = [[label, *(results[k].get(key, "–") for k in kinds), target] for key, label, target in rows_spec]
    return Table(f"chronicle bench artifacts (median of {runs} runs)", headers, rows)


def run(kinds: list[str] | None = None, *, runs: int = 3, quick: bool = False, postgres_url: str | None = None) -> Table:
    """Runs the benchmark on the given stores (memory, sqlite, file, postgresql);
    returns the table."""
    return asyncio.run(run_async(kinds or KINDS, runs=runs, quick=quick, postgres_url=postgres_url))


if __name__ == "__main__":
    print(run(quick=True).text())
