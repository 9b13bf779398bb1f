"""A workflow's events as google-adk 2.13 yields them: what each kind of node yields goes out as
it comes, by the workflow, at wf@1/node@1; agent nodes see their node input, not the session's
history. (tools/parity/apps/workflow_*.py compare the same shapes with google-adk itself.)"""

from __future__ import annotations

from domain.events import Event
from projections.workflow import fold_all
from runtime import LlmAgent, ScriptedLlm
from runtime.workflow import START, Workflow
from tests.test_workflow_graph import run_workflow


async def test_a_sync_generator_node_yields_its_state_messages_and_route_as_they_come(store_url):
    def intake(node_input: str):
        yield Event(state={"ask": node_input})
        yield Event(message=f"Looking at {node_input}.")
        yield Event(route="refund" if "refund" in node_input else "other")

    def refund(ask: str):  # a parameter read from state, which the generator set
        return f"refunded: {ask}"

    def other():
        return "passed on"

    wf = Workflow(name="wf", edges=[(START, intake, {"refund": refund, "other": other})])
    events, session = await run_workflow(store_url, wf, "a refund please")
    said = [(e.author, e.node_info.path, e.actions.state_delta or None, e.text() or None, e.actions.route, e.output)
            for e in events]
    assert said == [
        ("wf", "wf@1/intake@1", {"ask": "a refund please"}, None, None, None),
        ("wf", "wf@1/intake@1", None, "Looking at a refund please.", None, None),
        ("wf", "wf@1/intake@1", None, None, "refund", None),
        ("wf", "wf@1/refund@1", None, None, None, "refunded: a refund please"),
    ]
    assert [e.id for e in session.events[1:]] == [e.id for e in events]  # all committed, nothing else
    runs = fold_all(session.log_events()).nodes
    assert (runs["wf@1/intake@1"].status, runs["wf@1/intake@1"].route) == ("completed", "refund")


async def test_an_agent_node_sees_its_node_input_not_the_sessions_history(store_url):
    first = ScriptedLlm(["a draft about tides"])
    second = ScriptedLlm(["in short: tides"])
    writer = LlmAgent(name="writer", model=first, instruction="Write.", output_key="draft")

    def review(draft: str):  # bound from the writer's output_key
        return f"reviewed: {draft}"

    summarizer = LlmAgent(name="summarizer", model=second, instruction="Summarize.")
    wf = Workflow(name="wf", edges=[(START, writer, review, summarizer)])
    events, session = await run_workflow(store_url, wf, "tides")

    seen = lambda llm: [(c.role, [p.text for p in c.parts]) for c in llm.requests[0].contents]  # noqa: E731
    assert seen(first) == [("user", ["tides"])]
    assert seen(second) == [("user", ["reviewed: a draft about tides"])]  # not the writer's turn, not the user's
    assert [(e.author, e.node_info.path) for e in events] == [
        ("writer", "wf@1/writer@1"), ("wf", "wf@1/review@1"), ("summarizer", "wf@1/summarizer@1"),
    ]
    runs = fold_all(session.log_events()).nodes
    assert runs["wf@1/summarizer@1"].output == "in short: tides" and runs["wf@1/summarizer@1"].finished
