"""`chronicle bench rewind`: how long a rewind takes, and that it does not grow with history.

Workload: one session of N turns (200 and 2,000; 20 and 200 with --quick). Each turn is what a
tool-using agent leaves in the log: the user's message, the model's tool call, the tool's result
(writing session state, a `user:` key, and a new version of a session file), and the model's
answer. Then the latest turn is rewound through `Runner.rewind_async` -- the one-append rewind
plus bringing the file back through the artifact service -- and, separately, through the session
service alone (`rewind_session`). Each rewind takes back the newest turn still visible, so history
length stays N. Then the session is forked whole (`fork_session`, a copy of its visible
history: this one grows with history). Sessions of both sizes share one store and are rewound in turn (garbage
collection paused), so machine noise falls on both alike. Reported: the median of `runs` x 5
rewinds, and how the 2,000-turn time compares with the 200-turn one (1.0 = independent of
history length).

    python -m tools.bench.rewind [--stores memory,sqlite,postgresql] [--runs 3] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import time
import uuid
from typing import Optional

from google.genai import types

from domain import Event, EventActions
from runtime.agents.llm_agent import LlmAgent
from runtime.artifacts import LogArtifactService
from runtime.models import ScriptedLlm
from runtime.runner import Runner
from runtime.sessions import session_service_from_url
from tools.bench.common import Table, bench_stores, median

KINDS = ["memory", "sqlite", "postgresql"]
APP = "bench_rewind"
REWINDS_PER_RUN = 5


async def _build(sessions, artifacts, session_id: str, turns: int) -> list[str]:
    """Writes `turns` turns straight through the services (as a Runner would have); returns
    the invocation ids."""
    session = await sessions.create_session(app_name=APP, user_id="u", session_id=session_id, state={"start": 1})
    invocations = []
    for i in range(turns):
        inv = f"e-{i}-{uuid.uuid4().hex[:8]}"
        invocations.append(inv)
        version = await artifacts.save_artifact(
            app_name=APP, user_id="u", session_id=session_id, filename="notes.md",
            artifact=types.Part(text=f"notes after turn {i}"),
        )
        call_id = f"call-{i}"
        for event in (
            Event(invocation_id=inv, author="user",
                  content=types.Content(role="user", parts=[types.Part(text=f"Please note item {i}")])),
            Event(invocation_id=inv, author="clerk", content=types.Content(role="model", parts=[types.Part(
                function_call=types.FunctionCall(id=call_id, name="note", args={"item": i}))])),
            Event(invocation_id=inv, author="clerk",
                  content=types.Content(role="user", parts=[types.Part(function_response=types.FunctionResponse(
                      id=call_id, name="note", response={"version": version}))]),
                  actions=EventActions(state_delta={"items": i + 1, f"item_{i % 50}": i, "user:total": i},
                                       artifact_delta={"notes.md": version})),
            Event(invocation_id=inv, author="clerk",
                  content=types.Content(role="model", parts=[types.Part(text=f"Noted item {i}.")])),
        ):
            await sessions.append_event(session, event)
    return invocations


async def _measure(url: str, sizes: tuple[int, ...]) -> dict[tuple[str, int], list[float]]:
    """Rewind times (ms) through the Runner and through the session service alone, per session
    size. The sessions of every size live in one store and are rewound in turn, so machine noise
    falls on all sizes alike."""
    sessions = session_service_from_url(url)
    artifacts = LogArtifactService(sessions.store)
    runner = Runner(app_name=APP, agent=LlmAgent(name="clerk", model=ScriptedLlm(["ok"])),
                    session_service=sessions, artifact_service=artifacts)
    times: dict[tuple[str, int], list[float]] = {}
    built: dict[tuple[str, int], tuple[str, list[str]]] = {}
    try:
        for label in ("runner", "service"):
            for turns in sizes:
                session_id = f"{label}-{turns}-{uuid.uuid4().hex[:8]}"
                built[(label, turns)] = (session_id, await _build(sessions, artifacts, session_id, turns))
                times[(label, turns)] = []
        gc.collect()
        gc.disable()
        try:
            for k in range(REWINDS_PER_RUN):
                for (label, turns), (session_id, invocations) in built.items():
                    target = invocations[-1 - k]
                    t0 = time.perf_counter()
                    if label == "runner":
                        await runner.rewind_async(user_id="u", session_id=session_id, rewind_before_invocation_id=target)
                    else:
                        await sessions.rewind_session(
                            app_name=APP, user_id="u", session_id=session_id, rewind_before_invocation_id=target
                        )
                    times[(label, turns)].append((time.perf_counter() - t0) * 1000)
            for turns in sizes:  # a what-if branch of the whole (rewound) history
                session_id = built[("service", turns)][0]
                t0 = time.perf_counter()
                fork = await sessions.fork_session(app_name=APP, user_id="u", session_id=session_id)
                times.setdefault(("fork", turns), []).append((time.perf_counter() - t0) * 1000)
                assert fork.state["items"] == turns - REWINDS_PER_RUN
        finally:
            gc.enable()
        for turns in sizes:  # the rewinds really took the file and the state back
            session_id = built[("runner", turns)][0]
            part = await artifacts.load_artifact(app_name=APP, user_id="u", session_id=session_id, filename="notes.md")
            assert part is not None and part.text == f"notes after turn {turns - 1 - REWINDS_PER_RUN}"
            session = await sessions.get_session(app_name=APP, user_id="u", session_id=session_id)
            assert session.state["items"] == turns - REWINDS_PER_RUN
    finally:
        await runner.close()
        await sessions.close()
    return times


def run(
    kinds: Optional[list[str]] = None, *, runs: int = 3, quick: bool = False, postgres_url: Optional[str] = None
) -> Table:
    """Runs the rewind benchmark on the given stores; returns the table."""
    kinds = kinds or KINDS
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        raise ValueError(f"Unknown store kind(s) {unknown}; choose from {KINDS}.")
    sizes = (20, 200) if quick else (200, 2000)
    small = sizes[0]
    rows = []
    with bench_stores(kinds, postgres_url) as stores:
        for kind in kinds:
            times: dict[tuple[str, int], list[float]] = {}
            for _ in range(runs):
                for key, values in asyncio.run(_measure(stores.fresh(kind), sizes)).items():
                    times.setdefault(key, []).extend(values)
            for turns in sizes:
                runner_median = median(times[("runner", turns)])
                service_median = median(times[("service", turns)])
                ratio = runner_median / median(times[("runner", small)])
                fork_median = median(times[("fork", turns)])
                rows.append([kind, f"{turns:,}", f"{runner_median:.2f}", f"{service_median:.2f}", f"{ratio:.2f}",
                             f"{fork_median:.1f}"])
    return Table(
        f"Rewind of the latest turn (medians of {runs} runs x {REWINDS_PER_RUN} rewinds); fork of the whole session",
        ["store", "turns", "runner.rewind_async ms", "rewind_session ms", f"rewind vs {small:,} turns", "fork_session ms"],
        rows,
    )


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.bench.rewind", description=__doc__.split("\n\n")[0])
    parser.add_argument("--stores", help="comma-separated: memory,sqlite,postgresql (default: all)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--postgres", help="use this PostgreSQL URL instead of starting a server")
    args = parser.parse_args(argv)
    table = run(args.stores.split(",") if args.stores else None, runs=args.runs, quick=args.quick, postgres_url=args.postgres)
    print(table.text())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
