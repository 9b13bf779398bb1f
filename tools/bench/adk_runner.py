"""`chronicle bench adk --runner`: stock google-adk's Runner on ADK's own session services and on
Chronicle's bridge (runtime/adk_bridge).

The same stock-ADK agent (an LlmAgent with a scripted BaseLlm, so the model costs nothing, and a
tool that writes session, user: and app: state every fifth turn) talks for N turns through ADK's
``Runner.run_async``: on ADK's SqliteSessionService and DatabaseSessionService (PostgreSQL, psycopg
3), and on the bridge over SQLite and PostgreSQL. Reported: turns per second, and how a late turn
compares with an early one (the median of turns 6-15 against the median of the last ten), since
ADK's Runner loads the whole session each turn.

Issue 22's targets: on SQLite the bridge's turns are at least 2x ADK's own; the late turns are
no slower than 1.5x the early ones. Needs google-adk (`pip install -e '.[adk]'`, an environment
of its own).
"""

from __future__ import annotations

import asyncio
import gc
import time
import uuid
import warnings
from typing import Any, AsyncGenerator, Callable

from tools.bench.common import Table, bench_stores, median
from tools.bench.adk import INSTALL

KINDS = ["sqlite", "postgresql"]
FLOOR = "floor: ADK InMemorySessionService"
TARGET_SPEEDUP, TARGET_GROWTH = 2.0, 1.5


def _agent() -> Any:
    try:
        from google.adk.agents import LlmAgent
        from google.adk.models.base_llm import BaseLlm
        from google.adk.models.llm_response import LlmResponse
        from google.adk.tools import ToolContext
        from google.genai import types
    except ImportError as e:
        raise ImportError(INSTALL) from e

    usage = types.GenerateContentResponseUsageMetadata(prompt_token_count=8, candidates_token_count=4,
                                                       total_token_count=12)

    class ScriptedLlm(BaseLlm):
        """Every fifth turn calls the tool, then acknowledges its result; otherwise echoes."""

        model: str = "scripted"

        async def generate_content_async(self, llm_request: Any, stream: bool = False) -> AsyncGenerator[Any, None]:
            last = llm_request.contents[-1]
            if any(p.function_response for p in last.parts or []):
                yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text="Noted.")]),
                                  usage_metadata=usage)
                return
            text = last.parts[0].text or ""
            if text.endswith("0") or text.endswith("5"):
                call = types.FunctionCall(name="note", args={"item": text})
                yield LlmResponse(content=types.Content(role="model", parts=[types.Part(function_call=call)]),
                                  usage_metadata=usage)
                return
            yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text=f"You said {text}.")]),
                              usage_metadata=usage)

    def note(item: str, tool_context: ToolContext) -> dict:
        """Notes an item."""
        tool_context.state["last"] = item
        tool_context.state["user:notes"] = tool_context.state.get("user:notes", 0) + 1
        tool_context.state["app:notes"] = tool_context.state.get("app:notes", 0) + 1
        return {"ok": True}

    return LlmAgent(name="assistant", model=ScriptedLlm(), instruction="Be brief.", tools=[note])


def _services() -> dict[str, tuple[str, Callable[[str], Any]]]:
    """Each side: (the store kind it runs on, a session service from a fresh store URL)."""
    from google.adk.sessions import DatabaseSessionService, InMemorySessionService
    from google.adk.sessions.sqlite_session_service import SqliteSessionService

    from runtime.adk_bridge import ChronicleSessionService

    return {
        # The floor: ADK's Runner with a session service that stores nothing. No service can make
        # ADK's turns faster than this, or flatter (ADK's Runner rebuilds the context every turn).
        FLOOR: ("sqlite", lambda url: InMemorySessionService()),
        "ADK SqliteSessionService": ("sqlite", lambda url: SqliteSessionService(url.removeprefix("sqlite:///"))),
        "ADK DatabaseSessionService (PostgreSQL)": (
            "postgresql", lambda url: DatabaseSessionService(url.replace("postgresql://", "postgresql+psycopg://", 1))),
        "bridge, Chronicle on SQLite": ("sqlite", ChronicleSessionService),
        "bridge, Chronicle on PostgreSQL": ("postgresql", ChronicleSessionService),
    }


async def _turns(service: Any, turns: int) -> list[float]:
    """Seconds per turn of one conversation through ADK's Runner."""
    from google.adk.runners import Runner
    from google.genai import types

    app = f"bench_{uuid.uuid4().hex[:8]}"
    runner = Runner(app_name=app, agent=_agent(), session_service=service)
    session = await service.create_session(app_name=app, user_id="u")
    seconds = []
    gc.collect()
    for i in range(1, turns + 1):
        message = types.Content(role="user", parts=[types.Part(text=f"message {i}")])
        start = time.perf_counter()
        async for _ in runner.run_async(user_id="u", session_id=session.id, new_message=message):
            pass
        seconds.append(time.perf_counter() - start)
    await runner.close()
    return seconds


async def run_async(kinds: list[str], *, runs: int = 1, quick: bool = False, postgres_url: str | None = None) -> Table:
    turns = 50 if quick else 200
    _agent()  # says how to install google-adk when it is missing
    sides = {name: side for name, side in _services().items() if side[0] in kinds}
    figures: dict[str, list[list[float]]] = {}
    with warnings.catch_warnings(), bench_stores(kinds, postgres_url) as stores:
        warnings.simplefilter("ignore")  # ADK's notices about experimental features
        for r in range(runs):
            order = list(sides) if r % 2 == 0 else list(sides)[::-1]
            for name in order:
                kind, make = sides[name]
                service = make(stores.fresh(kind))
                try:
                    figures.setdefault(name, []).append(await _turns(service, turns))
                finally:
                    close = getattr(service, "close", None)
                    if close is not None:
                        await close()
    return _table(figures, turns, runs)


def _table(figures: dict[str, list[list[float]]], turns: int, runs: int) -> Table:
    def rate(name: str) -> float:
        return median([turns / sum(run) for run in figures[name]])

    def growth(name: str) -> tuple[float, float, float]:
        early = median([median(run[5:15]) for run in figures[name]]) * 1000
        late = median([median(run[-10:]) for run in figures[name]]) * 1000
        return early, late, late / early

    baseline = {"sqlite": "ADK SqliteSessionService", "postgresql": "ADK DatabaseSessionService (PostgreSQL)"}
    rows = []
    for name in figures:
        kind = "postgresql" if "PostgreSQL" in name else "sqlite"
        early, late, ratio = growth(name)
        versus = rate(name) / rate(baseline[kind]) if baseline[kind] in figures else None
        target = f" (target ≥{TARGET_SPEEDUP:.0f}x)" if kind == "sqlite" and name.startswith("bridge") else ""
        rows.append([
            name, f"{rate(name):,.1f}",
            "–" if not name.startswith("bridge") or versus is None else f"{versus:.2f}x{target}",
            f"{early:.1f}", f"{late:.1f}", f"{ratio:.2f}x" + (f" (target ≤{TARGET_GROWTH}x)" if name.startswith("bridge") else ""),
        ])
    return Table(
        f"chronicle bench adk --runner: stock google-adk's Runner, {turns} turns of one conversation, on ADK's "
        f"session services and on Chronicle's bridge ({'median of ' + str(runs) + ' runs' if runs > 1 else 'one run'})",
        ["session service", "turns/s", "vs ADK's on the same database", "early turn (ms, turns 6-15)",
         f"late turn (ms, last 10 of {turns})", "late / early"],
        rows,
    )


def run(kinds: list[str] | None = None, **kwargs: Any) -> Table:
    return asyncio.run(run_async(kinds or KINDS, **kwargs))
