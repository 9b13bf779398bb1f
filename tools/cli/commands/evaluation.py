"""`chronicle eval AGENT_DIR EVALSET`: score an agent on an eval set as `adk eval` does; and
`chronicle eval create`: an eval set whose cases are conversations recorded in the store."""

from __future__ import annotations

import argparse
import os
import time
from typing import Any, Callable

from tools.cli.commands import summary
from tools.cli.commands.common import EXIT_ERROR, EXIT_USAGE, CliError, find_session, open_store_for
from tools.cli.output import Output

CREATE, COMPARE = "create", "compare"


def register(sub: Any, common: Callable[..., argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "eval",
        parents=[common()],
        help=summary("eval"),
        description="chronicle eval AGENT_DIR EVALSET[:CASE,...] [--config FILE]: run each case's turns "
        "through the agent in AGENT_DIR and score them as google-adk 2.13's `adk eval` does (its .evalset.json "
        "and test_config.json; tool_trajectory_avg_score, response_match_score, final_response_match_v2 with a judge "
        "model, and the efficiency metrics). "
        "Prints a table per case and the turns that fell below a threshold; exit 1 when a case fails. "
        "chronicle eval create --from SESSION... | --app APP: write an eval set whose cases are conversations "
        "recorded in the store. chronicle eval compare RUN_A RUN_B: per case and turn, what changed between two "
        "runs recorded with --store (tool calls and arguments, final text, tokens). See docs/eval.md.",
    )
    p.add_argument("agent_dir", metavar="AGENT_DIR", help="the agent's folder (its agent.py), or `create`, `compare`")
    p.add_argument("evalset", nargs="?", metavar="EVALSET", help="an .evalset.json file, optionally :CASE,CASE "
                   "(compare: RUN_A)")
    p.add_argument("run_b", nargs="?", metavar="RUN_B", help=argparse.SUPPRESS)
    p.add_argument("--config", metavar="FILE", help="test_config.json (default: the one beside EVALSET, "
                   "else tool_trajectory_avg_score 1.0 and response_match_score 0.8)")
    p.add_argument("--num-runs", type=int, default=1, metavar="N", help="run every case N times (default 1)")
    p.add_argument("--junit", metavar="FILE", help="also write a JUnit XML report (one test per case) for CI")
    p.add_argument("--results-dir", metavar="DIR", help="also save the results as google-adk does, under "
                   "DIR/APP/.adk/eval_history/")
    p.add_argument("--from", dest="sessions", nargs="+", metavar="SESSION", help="create: these sessions")
    p.add_argument("--app", help="create: every session of this app (or the app of --from's sessions)")
    p.add_argument("--user", help="create: only this user's sessions")
    p.add_argument("--since", metavar="WHEN", help="create: only sessions created since WHEN (ISO date or time, "
                   "e.g. 2026-11-01 or 2026-11-01T09:00:00+00:00; without a zone, UTC)")
    p.add_argument("--where", action="append", default=[], metavar="KEY=VALUE", help="create: only sessions "
                   "where a turn called a tool (tool=NAME) or whose state holds a value (state.KEY=VALUE); "
                   "repeat for more conditions, all must hold")
    p.add_argument("--out", metavar="FILE", help="create: where to write the eval set (default EVAL_SET_ID.evalset.json)")
    p.add_argument("--id", dest="eval_set_id", metavar="EVAL_SET_ID", help="create: the eval set's id (default: the app)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, out: Output) -> int:
    if args.agent_dir == CREATE:
        return create(args, out)
    if args.agent_dir == COMPARE:
        return compare(args, out)
    if args.run_b:
        raise CliError(f"unexpected argument {args.run_b!r}", EXIT_USAGE)
    if not args.evalset:
        raise CliError("Give the eval set: chronicle eval AGENT_DIR EVALSET (or chronicle eval create ...).", EXIT_USAGE)
    if args.sessions or args.out or args.eval_set_id or args.where:
        raise CliError("--from, --where, --out and --id belong to `chronicle eval create`.", EXIT_USAGE)
    if args.num_runs < 1:
        raise CliError("--num-runs must be at least 1.", EXIT_USAGE)
    return evaluate(args, out)


def evaluate(args: argparse.Namespace, out: Output) -> int:
    import asyncio

    from runtime.evaluation.eval_config import get_eval_metrics_from_config, get_evaluation_criteria_or_default
    from runtime.evaluation.local_eval_service import evaluate_eval_set
    from runtime.evaluation.local_eval_set_results_manager import LocalEvalSetResultsManager
    from runtime.evaluation.local_eval_sets_manager import load_eval_set_from_file
    from runtime.evaluation.report import case_report, failure_lines, junit_xml
    from runtime.server.app_loader import AppLoader

    path, _, only = args.evalset.partition(":") if not os.path.exists(args.evalset) else (args.evalset, "", "")
    eval_set = load_eval_set_from_file(path)
    if only:
        wanted = only.split(",")
        missing = sorted(set(wanted) - {c.eval_id for c in eval_set.eval_cases})
        if missing:
            raise CliError(f"No eval case {', '.join(missing)} in {path}.")
        eval_set.eval_cases = [c for c in eval_set.eval_cases if c.eval_id in wanted]
    config_path = args.config or os.path.join(os.path.dirname(os.path.abspath(path)), "test_config.json")
    if args.config and not os.path.isfile(args.config):
        raise CliError(f"No config file at {args.config!r}.")
    config = get_evaluation_criteria_or_default(config_path)
    metrics = get_eval_metrics_from_config(config)
    loader = AppLoader(args.agent_dir)
    apps = loader.list_apps()
    if len(apps) != 1:
        raise CliError(f"{args.agent_dir!r} holds {len(apps)} apps; give one agent's folder (the one with agent.py).")
    loaded = loader.load(apps[0])
    recording = bool(getattr(args, "store", None) or os.environ.get("CHRONICLE_STORE"))
    store = open_store_for(args, must_exist=False) if recording else None
    run_id = f"eval-{time.strftime('%Y%m%d%H%M%S')}-{os.urandom(3).hex()}"
    began = time.monotonic()
    try:
        with out.progress("eval", total=len(eval_set.eval_cases) * args.num_runs, unit="cases") as bar:
            results = asyncio.run(evaluate_eval_set(loaded, eval_set, metrics, num_runs=args.num_runs, store=store,
                                                    run_id=run_id, on_case=lambda _: bar.advance(),
                                                    user_simulator_config=config.user_simulator_config))
    finally:
        if store is not None:
            store.close()
    seconds = time.monotonic() - began
    reports = [case_report(r) for r in results]
    failed = sum(r["status"] == "FAILED" for r in reports)
    passed = sum(r["status"] == "PASSED" for r in reports)
    if args.results_dir:
        LocalEvalSetResultsManager(args.results_dir).save_eval_set_result(apps[0], eval_set.eval_set_id, results)
    if args.junit:
        with open(args.junit, "w", encoding="utf-8") as f:
            f.write(junit_xml(eval_set.eval_set_id, reports, seconds))
    code = EXIT_ERROR if failed or not passed else 0
    if out.json_mode:
        out.json({"eval_set_id": eval_set.eval_set_id, "run_id": run_id, "recorded": recording,
                  "passed": passed, "failed": failed, "cases": reports})
        return code
    names = [m.metric_name for m in metrics]
    rows = [[r["eval_id"], r["status"], *(_score(r["metrics"].get(n)) for n in names)] for r in reports]
    out.table(["case", "status", *names], rows, title=f"eval set {eval_set.eval_set_id} ({path})",
              right=range(2, 2 + len(names)))
    for r in reports:
        if r["status"] == "FAILED":
            out.line()
            out.line(out.style(f"{r['eval_id']} FAILED", "red", "bold"))
            for line in failure_lines(r):
                out.line(f"  {line}")
    out.line()
    out.line("Eval Run Summary")
    out.line(f"{eval_set.eval_set_id}:\n  Tests passed: {passed}\n  Tests failed: {failed}")
    if recording:
        out.note(f"the run's sessions are in the store, ids {run_id}-RUN-CASE")
    return code


def _score(metric: dict | None) -> str:
    if metric is None or metric["score"] is None:
        return "n/a"
    mark = " ✗" if metric["status"] == "FAILED" else ""
    return f"{metric['score']:.3f}{mark}"


def _since(when: str | None) -> float:
    from datetime import datetime, timezone

    if not when:
        return 0.0
    try:
        moment = datetime.fromisoformat(when)
    except ValueError:
        raise CliError(f"--since {when!r} is not an ISO date or time (e.g. 2026-11-01 or 2026-11-01T09:00).",
                       EXIT_USAGE) from None
    return (moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)).timestamp()


def create(args: argparse.Namespace, out: Output) -> int:
    from runtime.log_reader import LogReader
    from runtime.evaluation.from_log import eval_set_from_sessions
    from runtime.evaluation.local_eval_sets_manager import check_id, write_eval_set
    from domain.errors import InvalidArgumentError
    from runtime.evaluation.where import parse_where

    if args.evalset or not (args.sessions or args.app):
        raise CliError("Usage: chronicle eval create --from SESSION... | --app APP [--user U] [--out FILE]",
                       EXIT_USAGE)
    try:  # a bad condition fails before the store is opened
        where = [parse_where(w) for w in args.where]
    except InvalidArgumentError as e:
        raise CliError(str(e), EXIT_USAGE) from None
    store = open_store_for(args)
    try:
        if args.sessions:
            rows = [find_session(store, s, args.app, args.user) for s in args.sessions]
        else:
            since = _since(args.since)
            rows = [r for r in LogReader(store).sessions(args.app, args.user, deleted=False)
                    if r.created_time >= since]
            if not rows:
                raise CliError(f"No sessions of app {args.app!r}" + (f", user {args.user!r}" if args.user else "")
                               + (f", created since {args.since}" if args.since else "") + ".")
        eval_set_id = args.eval_set_id or rows[0].app_name
        check_id("eval_set_id", eval_set_id)
        eval_set = eval_set_from_sessions(store, rows, eval_set_id, where)
    finally:
        store.close()
    target = args.out or f"{eval_set_id}.evalset.json"
    write_eval_set(target, eval_set)
    turns = sum(len(c.conversation or []) for c in eval_set.eval_cases)
    if out.json_mode:
        out.json({"path": target, "eval_set_id": eval_set_id, "cases": len(eval_set.eval_cases), "turns": turns})
    else:
        out.line(f"wrote {target}: {len(eval_set.eval_cases)} case(s), {turns} turn(s), from the store as recorded")
    return 0


def compare(args: argparse.Namespace, out: Output) -> int:
    """Exit 0 when the two runs took the same turns, 1 when any turn changed (as diff does)."""
    from runtime.evaluation.compare import compare_runs

    if not (args.evalset and args.run_b):
        raise CliError("Usage: chronicle eval compare RUN_A RUN_B [--app APP] (run ids as `chronicle eval` printed)",
                       EXIT_USAGE)
    store = open_store_for(args)
    try:
        cases = compare_runs(store, args.evalset, args.run_b, args.app)
    finally:
        store.close()
    differs = any(t["changed"] for c in cases for t in c["turns"]) or any(c["turns_a"] != c["turns_b"] for c in cases)
    if out.json_mode:
        out.json({"run_a": args.evalset, "run_b": args.run_b, "differs": differs, "cases": cases})
        return EXIT_ERROR if differs else 0
    rows = []
    for c in cases:
        for t in c["turns"]:
            what = ", ".join(t["changed"]) or "same"
            detail = ""
            if "trajectory" in t["changed"]:
                detail = f"{_calls(t['a']['calls'])} -> {_calls(t['b']['calls'])}"
            elif "answer" in t["changed"]:
                detail = f"{t['a']['answer']!r} -> {t['b']['answer']!r}"
            rows.append([c["case"], str(t["turn"]), what, detail])
        if c["turns_a"] != c["turns_b"]:
            rows.append([c["case"], "", "turns", f"{c['turns_a']} -> {c['turns_b']}"])
    out.table(["case", "turn", "changed", "from A to B"], rows, title=f"eval runs {args.evalset} -> {args.run_b}",
              max_width=90)
    return EXIT_ERROR if differs else 0


def _calls(calls: list[dict]) -> str:
    return "; ".join(f"{c['name']}({', '.join(f'{k}={v!r}' for k, v in c['args'].items())})" for c in calls) or "none"
