"""`chronicle bench workflow`: workflow graphs on google-adk 2.13's Workflow and on Chronicle's.

Two measures, on fresh stores:

* **Speed.** One workflow of trivial async function nodes, built by the same code from each
  library's names: a chain, a fan-out joined by a JoinNode, a node that routes (one route taken),
  and a tail; 50 nodes run. It runs once per run on each side, interleaved (who goes first
  alternates), and the figure is the time per node run; the ratio is Chronicle's over ADK's, per
  run, then the median. Each side first runs the workflow once in memory, untimed, so first-use
  costs (imports, pydantic schemas) are no one's figure.
* **Resume** (Chronicle). A 200-node chain whose node k fails on the first run (k nodes finished);
  a new Runner resumes the invocation from the log. Reported, for k = 0, 50, 150, in CPU time of
  this process (its threads included; wall time on a shared machine is mostly other jobs' noise):
  the time until the first new node has finished (reading the log once, folding it, and one
  node), beside the time of reading the session once (a get_session: the floor), and the time per
  node run after that first one. If a resume re-ran finished nodes, the last would grow with k. The
  first grows with k by design: as google-adk 2.13 does in a resumable app, the resume says each
  finished node's output again, one event (one append) each, before the first new node runs.

google-adk pins google-genai below 3, so this runs in an environment where both are importable
(see tools/bench/adk.py).
"""

from __future__ import annotations

import asyncio
import gc
import time
import types as pytypes
import uuid
import warnings
from typing import Any

from google.genai import types

from tools.bench.adk import adk_session_service
from tools.bench.common import Stopwatch, Table, bench_stores, median

KINDS = ["memory", "sqlite", "postgresql"]

ADK_SERVICE = {"memory": "InMemorySessionService", "sqlite": "SqliteSessionService",
               "postgresql": "DatabaseSessionService"}

SHAPE = {"chain": 20, "fan": 20, "tail": 7}  # + join, router, routed node: 50 nodes run
QUICK_SHAPE = {"chain": 3, "fan": 3, "tail": 2}
RESUME_NODES, RESUME_CUTS = 200, (0, 50, 150)
QUICK_RESUME_NODES, QUICK_RESUME_CUTS = 20, (0, 5, 15)

TARGET_SQLITE = 1 / 3

INSTALL = (
    "`chronicle bench workflow` runs google-adk's Workflow beside Chronicle's, and google-adk is not installed "
    "here. It pins google-genai below 3, so give it an environment of its own: python -m venv .venv-adk && "
    ".venv-adk/bin/pip install -e '.[adk]' && .venv-adk/bin/chronicle bench workflow"
)


def _message() -> types.Content:
    return types.Content(role="user", parts=[types.Part(text="1")])


def _adk() -> pytypes.SimpleNamespace:
    try:
        from google.adk import workflow
        from google.adk.apps import App, ResumabilityConfig
        from google.adk.events import Event
        from google.adk.runners import Runner
    except ImportError as e:
        raise ImportError(INSTALL) from e
    return pytypes.SimpleNamespace(wf=workflow, Event=Event, Runner=Runner, App=App,
                                   ResumabilityConfig=ResumabilityConfig, service=adk_session_service)


def _chronicle() -> pytypes.SimpleNamespace:
    from runtime import App, ResumabilityConfig, Runner, session_service_from_url, workflow
    from runtime.events import Event

    return pytypes.SimpleNamespace(wf=workflow, Event=Event, Runner=Runner, App=App,
                                   ResumabilityConfig=ResumabilityConfig,
                                   service=lambda kind, url: session_service_from_url(url))


def speed_workflow(lib: pytypes.SimpleNamespace, chain: int, fan: int, tail: int) -> tuple[Any, int]:
    """The workflow, built from `lib`'s names, and how many nodes a run runs."""
    wf = lib.wf

    def step(name: str) -> Any:
        async def add_one(node_input: Any) -> int:
            return (node_input if isinstance(node_input, int) else 0) + 1

        return wf.node(add_one, name=name)

    async def decide(node_input: Any):
        yield lib.Event(output=len(node_input), route="left")

    left = step("left")
    edges = [(wf.START, *[step(f"c{i}") for i in range(chain)], tuple(step(f"f{i}") for i in range(fan)),
              wf.JoinNode(name="join"), wf.node(decide, name="decide"), {"left": left, "right": step("right")})]
    if tail:
        edges.append((left, *[step(f"t{i}") for i in range(tail)]))
    return wf.Workflow(name="bench_wf", edges=edges), chain + fan + 3 + tail


async def _run_once(lib: Any, service: Any, workflow: Any) -> float:
    """Seconds for one run of `workflow` in a new session; checks that it ran to its end."""
    app = f"bench_{uuid.uuid4().hex[:8]}"
    runner = lib.Runner(app_name=app, node=workflow, session_service=service)
    session = await service.create_session(app_name=app, user_id="u")
    gc.collect()
    outputs = []
    with Stopwatch() as sw:
        async for event in runner.run_async(user_id="u", session_id=session.id, new_message=_message()):
            if event.output is not None:
                outputs.append(event.output)
    assert outputs, "the workflow produced no output"
    return sw.seconds


async def _close(service: Any) -> None:
    close = getattr(service, "close", None)
    if close is not None:
        await close()


async def speed(kinds: list[str], runs: int, shape: dict[str, int], stores: Any) -> dict[tuple[str, str], list[float]]:
    """Seconds per node run, per (store kind, side), one figure per run."""
    sides = {"adk": _adk(), "chronicle": _chronicle()}
    built = {side: speed_workflow(lib, **shape) for side, lib in sides.items()}
    for side, lib in sides.items():  # warm-up: first-use costs are no one's figure
        service = lib.service("memory", "memory://")
        await _run_once(lib, service, built[side][0])
        await _close(service)
    figures: dict[tuple[str, str], list[float]] = {}
    for r in range(runs):
        for kind in kinds:
            for side in (["adk", "chronicle"] if r % 2 == 0 else ["chronicle", "adk"]):
                lib, (workflow, nodes) = sides[side], built[side]
                service = lib.service(kind, stores.fresh(kind))
                try:
                    figures.setdefault((kind, side), []).append(await _run_once(lib, service, workflow) / nodes)
                finally:
                    await _close(service)
    return figures


def resume_chain(lib: Any, n: int, broken: set[str]) -> Any:
    wf = lib.wf

    def step(name: str) -> Any:
        async def add_one(node_input: Any) -> int:
            if name in broken:
                raise RuntimeError(f"{name} fails on the first run")
            return (node_input if isinstance(node_input, int) else 0) + 1

        return wf.node(add_one, name=name)

    return wf.Workflow(name="chain", edges=[(wf.START, *[step(f"n{i}") for i in range(n)])])


def _step(path: str) -> int:
    """The index i of the chain's node `n<i>` at `path` (``chain@1/n7@1`` -> 7)."""
    return int(path.rsplit("/n", 1)[-1].split("@", 1)[0])


async def resume(kind: str, url: str, n: int, cut: int) -> dict[str, float]:
    """A chain of n nodes whose node `cut` fails; then a new Runner resumes the invocation. Returns
    the CPU seconds until the first new node finished, those of reading the session once (what the
    resume must read), the CPU seconds in all, and the nodes run."""
    lib = _chronicle()
    service = lib.service(kind, url)
    broken = {f"n{cut}"}

    def runner() -> Any:
        app = lib.App(name="bench_resume", root_agent=resume_chain(lib, n, broken),
                      resumability_config=lib.ResumabilityConfig(is_resumable=True))
        return lib.Runner(app=app, session_service=service)

    try:
        session = await service.create_session(app_name="bench_resume", user_id="u")
        invocation = None
        try:
            async for event in runner().run_async(user_id="u", session_id=session.id, new_message=_message()):
                invocation = event.invocation_id
        except RuntimeError:
            pass
        assert invocation is not None, "the first run recorded nothing"
        broken.clear()
        with Stopwatch(time.process_time) as read:  # the floor: the events a resume must read, read once
            await service.get_session(app_name="bench_resume", user_id="u", session_id=session.id)
        resumed = runner()  # a new Runner: nothing of the first run is held in memory
        gc.collect()
        first, ran = None, 0
        with Stopwatch(time.process_time) as sw:
            async for event in resumed.run_async(user_id="u", session_id=session.id, invocation_id=invocation):
                # a node that ran now (a resumable app also says the finished ones' outputs again, as ADK)
                if event.output is not None and _step(event.node_info.path) >= cut:
                    ran += 1
                    first = first if first is not None else sw.elapsed()
        assert ran == n - cut, f"the resume ran {ran} nodes, not the {n - cut} left"
        return {"first": first or 0.0, "read": read.seconds, "total": sw.seconds, "ran": ran}
    finally:
        await _close(service)


async def run_async(kinds: list[str], *, runs: int = 3, quick: bool = False, postgres_url: str | None = None) -> Table:
    shape = QUICK_SHAPE if quick else SHAPE
    n, cuts = (QUICK_RESUME_NODES, QUICK_RESUME_CUTS) if quick else (RESUME_NODES, RESUME_CUTS)
    with warnings.catch_warnings(), bench_stores(kinds, postgres_url) as stores:
        warnings.simplefilter("ignore")  # ADK's notices about experimental features
        figures = await speed(kinds, runs, shape, stores)
        resumes = {(kind, cut): [await resume(kind, stores.fresh(kind), n, cut) for _ in range(runs)]
                   for kind in kinds for cut in cuts}
    nodes = speed_workflow(_chronicle(), **shape)[1]
    rows = []
    for kind in kinds:
        adk, ours = figures[(kind, "adk")], figures[(kind, "chronicle")]
        ratio = median([o / a for o, a in zip(ours, adk)])
        target = f"≤{TARGET_SQLITE:.2f}x" if kind == "sqlite" else "–"
        rows.append([f"{kind} ({ADK_SERVICE[kind]})", f"{nodes} nodes run: ms per node",
                     f"{median(adk) * 1000:.2f}", f"{median(ours) * 1000:.2f}", f"{ratio:.2f}x", target])
    for kind in kinds:
        for cut in cuts:
            found = resumes[(kind, cut)]
            first = median([f["first"] for f in found]) * 1000
            per_node = median([(f["total"] - f["first"]) / max(f["ran"] - 1, 1) for f in found]) * 1000
            read = median([f["read"] for f in found]) * 1000
            rows.append([kind if cut == cuts[0] else "", f"resume after {cut} of {n} finished",
                         "–", f"CPU: {first:.1f} ms to the 1st new node (the read alone: {read:.1f}); "
                         f"{per_node:.2f} ms per node run", "–", "per node: flat (first: + k outputs said again)"])
    return Table(
        f"chronicle bench workflow: google-adk 2.13's Workflow and Chronicle's, side by side (median of {runs} "
        "interleaved runs; resume: Chronicle only)",
        ["store", "measure", "ADK here", "Chronicle here", "Chronicle / ADK", "target"],
        rows,
    )


def run(kinds: list[str] | None = None, **kwargs: Any) -> Table:
    return asyncio.run(run_async(kinds or KINDS, **kwargs))
