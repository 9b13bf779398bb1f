"""An agent with parallel_worker=True as a workflow node (google-adk 2.13's parallel-worker agent):
it answers once per item of its list input, each item on a branch of its own, sees only its item,
and its output is the list of its answers in input order. (tools/parity/apps/workflow_parallel_agent.py
compares the same shape with google-adk itself.)"""

from __future__ import annotations

from pydantic import BaseModel

from projections.workflow import fold_all
from runtime import LlmAgent, ScriptedLlm
from runtime.workflow import START, Workflow
from tests.test_workflow_graph import run_workflow


class Note(BaseModel):
    word: str
    letters: int


def note_of(request) -> str:
    word = request.contents[-1].parts[0].text
    return f'{{"word": "{word}", "letters": {len(word)}}}'


async def test_a_parallel_worker_agent_answers_each_item_on_its_own_branch(store_url):
    llm = ScriptedLlm([note_of], cycle=True)
    explain = LlmAgent(name="explain", model=llm, instruction="Count.", parallel_worker=True, output_schema=Note)

    def split(node_input: str):
        return node_input.split()

    def gather(node_input: list):
        return ", ".join(f"{n['word']}={n['letters']}" for n in node_input)

    events, session = await run_workflow(store_url, Workflow(name="wf", edges=[(START, split, explain, gather)]), "sea tides")
    answers = [e for e in events if e.author == "explain"]
    assert sorted((e.node_info.path, e.branch, e.output) for e in answers) == [  # items run at once: any order
        ("wf@1/explain@1/explain@1", "explain@1", {"letters": 3, "word": "sea"}),
        ("wf@1/explain@1/explain@2", "explain@2", {"letters": 5, "word": "tides"}),
    ]
    assert sorted([c.parts[0].text for c in r.contents] for r in llm.requests) == [["sea"], ["tides"]]
    runs = fold_all(session.log_events()).nodes
    assert runs["wf@1/gather@1"].output == "sea=3, tides=5"  # in input order, whichever answered first
