"""What a run found, per case and per turn, for people and for CI: the scores, the turns below a threshold,
and what changed in each turn (its tool calls with their arguments, its final answer)."""

from __future__ import annotations

from typing import Any
from xml.sax.saxutils import quoteattr, escape

from .eval_case import Invocation, get_all_tool_calls
from .eval_metrics import EvalStatus
from .eval_result import EvalCaseResult
from .final_response_match_v1 import response_text


def calls_of(invocation: Invocation | None) -> list[dict[str, Any]]:
    if invocation is None:
        return []
    return [{"name": c.name, "args": c.args or {}} for c in get_all_tool_calls(invocation.intermediate_data)]


def turn_changes(actual: Invocation, expected: Invocation | None) -> list[str]:
    """'trajectory' when the tool calls (names, arguments, order) differ; 'answer' when the final text does."""
    changes = []
    if calls_of(actual) != calls_of(expected):
        changes.append("trajectory")
    if response_text(actual.final_response) != response_text(expected.final_response if expected else None):
        changes.append("answer")
    return changes


def case_report(result: EvalCaseResult) -> dict[str, Any]:
    metrics = {m.metric_name: {"score": m.score, "threshold": m.threshold, "status": m.eval_status.name}
               for m in result.overall_eval_metric_results}
    turns = []
    for n, turn in enumerate(result.eval_metric_result_per_invocation, 1):
        expected = turn.expected_invocation
        below = [m.metric_name for m in turn.eval_metric_results if m.eval_status == EvalStatus.FAILED]
        turns.append({
            "turn": n, "invocation_id": expected.invocation_id if expected else "",
            "scores": {m.metric_name: m.score for m in turn.eval_metric_results},
            "below_threshold": below, "changed": turn_changes(turn.actual_invocation, expected),
            "expected": {"calls": calls_of(expected),
                         "answer": response_text(expected.final_response if expected else None)},
            "actual": {"calls": calls_of(turn.actual_invocation),
                       "answer": response_text(turn.actual_invocation.final_response)},
        })
    return {"eval_id": result.eval_id, "status": result.final_eval_status.name, "session_id": result.session_id,
            "error": result.error, "metrics": metrics, "turns": turns}


def junit_xml(eval_set_id: str, reports: list[dict[str, Any]], seconds: float) -> str:
    """A JUnit report: one test per case, failing with the turns below a threshold."""
    failed = sum(r["status"] == "FAILED" for r in reports)
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             f'<testsuite name={quoteattr(eval_set_id)} tests="{len(reports)}" failures="{failed}" '
             f'errors="0" skipped="0" time="{seconds:.3f}">']
    for r in reports:
        lines.append(f'  <testcase classname={quoteattr(eval_set_id)} name={quoteattr(r["eval_id"])}>')
        if r["status"] == "FAILED":
            detail = "\n".join(failure_lines(r))
            lines.append(f'    <failure message={quoteattr(detail.splitlines()[0])}>{escape(detail)}</failure>')
        lines.append("  </testcase>")
    lines.append("</testsuite>")
    return "\n".join(lines) + "\n"


def failure_lines(report: dict[str, Any]) -> list[str]:
    """One line per metric below its threshold, then one per turn that fell below, with what changed."""
    lines = [f"the run failed: {report['error']}"] if report.get("error") else []
    lines += [f"{name} {m['score']:.3f} < {m['threshold']}" for name, m in report["metrics"].items()
             if m["status"] == "FAILED" and m["score"] is not None]
    for t in report["turns"]:
        if t["below_threshold"]:
            lines.append(f"turn {t['turn']} ({t['invocation_id']}): {', '.join(t['below_threshold'])}"
                         + (f"; changed: {', '.join(t['changed'])}" if t["changed"] else ""))
    return lines or ["failed"]
