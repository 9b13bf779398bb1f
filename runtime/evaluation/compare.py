"""Two eval runs side by side: a run's sessions are in the store as `RUN_ID-RUN-CASE`, so the same case of
two runs (the same agent at two versions, say) is compared turn by turn: tool calls with their arguments,
final text, tokens."""

from __future__ import annotations

import re
from typing import Any

from domain.errors import InvalidArgumentError
from runtime.log_reader import LogReader
from runtime.stores import CatalogRow, Store

from ._efficiency_evaluators import token_usage
from .final_response_match_v1 import response_text
from .from_log import recorded_turns
from .report import calls_of, turn_changes


def run_session_id(run_id: str, run: int, case: int) -> str:
    """The id of an eval run's session: the run id, then which run of the set and which case."""
    return f"{run_id}-{run}-{case}"


def in_run(session_id: str, run_id: str) -> bool:
    return session_id.startswith(f"{run_id}-")


_RUN_SESSION = re.compile(r"^(?P<run_id>.+)-(?P<run>\d+)-(?P<case>\d+)$")


def eval_runs(store: Store, app_name: str) -> list[dict[str, Any]]:
    """The eval runs recorded for an app, newest first: each run's id, case and session counts, users
    and when it started (its first session's creation)."""
    runs: dict[str, dict[str, Any]] = {}
    for row in LogReader(store).sessions(app_name, deleted=False):
        found = _RUN_SESSION.match(row.session_id)
        if not found or not found["run_id"].startswith("eval-"):
            continue
        run = runs.setdefault(found["run_id"], {"run_id": found["run_id"], "cases": set(), "sessions": 0,
                                                "users": set(), "started": row.created_time})
        run["cases"].add(found["case"])
        run["sessions"] += 1
        run["users"].add(row.user_id)
        run["started"] = min(run["started"], row.created_time)
    return [{**run, "cases": len(run["cases"]), "users": sorted(run["users"])}
            for run in sorted(runs.values(), key=lambda r: r["started"], reverse=True)]


def run_sessions(store: Store, run_id: str, app_name: str | None = None) -> dict[str, CatalogRow]:
    """The run's sessions by their `RUN-CASE` suffix."""
    found = {r.session_id[len(run_id) + 1:]: r for r in LogReader(store).sessions(app_name, deleted=False)
             if in_run(r.session_id, run_id)}
    if not found:
        raise InvalidArgumentError(f"No sessions of eval run {run_id!r} in this store (runs are recorded when "
                                   "`chronicle eval` is given --store).")
    return found


def compare_runs(store: Store, run_a: str, run_b: str, app_name: str | None = None) -> list[dict[str, Any]]:
    """Per case both runs have, per turn: what changed from A to B (trajectory, answer, tokens)."""
    a, b = run_sessions(store, run_a, app_name), run_sessions(store, run_b, app_name)
    cases = []
    for key in sorted(set(a) & set(b), key=lambda k: [int(p) if p.isdigit() else p for p in k.split("-")]):
        turns_a, turns_b = recorded_turns(store, a[key])[3], recorded_turns(store, b[key])[3]
        turns = []
        for n, (ta, tb) in enumerate(zip(turns_a, turns_b), 1):
            changed = turn_changes(tb, ta)
            tokens = (token_usage(ta).total_tokens, token_usage(tb).total_tokens)
            if tokens[0] != tokens[1]:
                changed.append("tokens")
            turns.append({"turn": n, "user": response_text(ta.user_content), "changed": changed,
                          "a": {"calls": calls_of(ta), "answer": response_text(ta.final_response), "tokens": tokens[0]},
                          "b": {"calls": calls_of(tb), "answer": response_text(tb.final_response), "tokens": tokens[1]}})
        cases.append({"case": key, "session_a": a[key].session_id, "session_b": b[key].session_id,
                      "user_a": a[key].user_id, "user_b": b[key].user_id,
                      "turns_a": len(turns_a), "turns_b": len(turns_b), "turns": turns})
    return cases
