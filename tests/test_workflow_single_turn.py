"""Single-turn sub-agents (`mode="single_turn"`, google-adk 2.13's): the chat agent calls each as a
tool on its request alone, each run numbered under the chat agent and on the call's branch, and
gets its answer as the call's result; never a transfer target. On every store.
(tools/parity/apps/single_turn_agents.py compares the same with google-adk, model requests too.)"""

from __future__ import annotations

from google.genai import types
from pydantic import BaseModel

from runtime import App, LlmAgent, Runner, ScriptedLlm, session_service_from_url

APP, USER, SESSION = "single_turn", "u1", "s1"


class Count(BaseModel):
    word: str
    letters: int


def count(request) -> str:
    word = request.contents[-1].parts[0].text
    return f'{{"word": "{word}", "letters": {len(word)}}}'


def team(lead_turns: list) -> tuple[LlmAgent, ScriptedLlm, ScriptedLlm]:
    counter_llm = ScriptedLlm([count], cycle=True)
    counter = LlmAgent(name="counter", mode="single_turn", model=counter_llm, output_schema=Count,
                       description="Counts letters.", instruction="Count the letters.")
    lead_llm = ScriptedLlm(lead_turns)
    return LlmAgent(name="lead", model=lead_llm, instruction="Help.", sub_agents=[counter]), lead_llm, counter_llm


async def test_a_chat_agent_calls_its_single_turn_sub_agent_as_a_tool(store_url):
    lead, lead_llm, counter_llm = team([
        ScriptedLlm.call("counter", request="tides"),
        ScriptedLlm.call("counter", request="moon"),
        "Tides has 5 letters, moon 4.",
    ])
    sessions = session_service_from_url(store_url)
    await sessions.create_session(app_name=APP, user_id=USER, session_id=SESSION)
    runner = Runner(app=App(name=APP, root_agent=lead), session_service=sessions)
    message = types.Content(role="user", parts=[types.Part(text="count some words")])
    events = [e async for e in runner.run_async(user_id=USER, session_id=SESSION, new_message=message)]

    calls = [c for e in events for c in e.get_function_calls()]
    answers = [e for e in events if e.author == "counter"]
    assert [(e.node_info.path, e.branch, e.output) for e in answers] == [
        ("lead@1/counter@1", f"counter@{calls[0].id}", {"word": "tides", "letters": 5}),
        ("lead@1/counter@2", f"counter@{calls[1].id}", {"word": "moon", "letters": 4}),
    ]
    results = [r.response for e in events for r in e.get_function_responses()]
    assert results == [{"word": "tides", "letters": 5}, {"word": "moon", "letters": 4}]
    assert events[-1].content.parts[0].text == "Tides has 5 letters, moon 4."
    # the sub-agent sees its request alone, told no identity; the lead sees only the results
    assert [[c.parts[0].text for c in r.contents] for r in counter_llm.requests] == [["tides"], ["moon"]]
    assert "internal name" not in counter_llm.requests[0].config.system_instruction
    said = [p.text for c in lead_llm.requests[-1].contents for p in c.parts or [] if p.text]
    assert said == ["count some words"]  # not the sub-agent's answers: they lie on its calls' branches
    # a tool, not a transfer target
    declared = [d.name for t in lead_llm.requests[0].config.tools for d in t.function_declarations]
    assert declared == ["counter"]

    session = await sessions.get_session(app_name=APP, user_id=USER, session_id=SESSION)
    assert [(e.author, e.node_info.path) for e in session.events] == [
        ("user", ""), ("lead", "lead@1"), ("counter", "lead@1/counter@1"), ("lead", "lead@1"),
        ("lead", "lead@1"), ("counter", "lead@1/counter@2"), ("lead", "lead@1"), ("lead", "lead@1"),
    ]
    await sessions.close()


async def test_a_sub_agent_input_that_does_not_fit_its_schema_is_told_to_the_model(store_url):
    class Word(BaseModel):
        word: str

    checker = LlmAgent(name="checker", mode="single_turn", model=ScriptedLlm(["ok"]), input_schema=Word)
    lead_llm = ScriptedLlm([ScriptedLlm.call("checker", wrong=1), "sorry"])
    lead = LlmAgent(name="lead", model=lead_llm, sub_agents=[checker])
    sessions = session_service_from_url(store_url)
    await sessions.create_session(app_name=APP, user_id=USER, session_id=SESSION)
    runner = Runner(app=App(name=APP, root_agent=lead), session_service=sessions)
    message = types.Content(role="user", parts=[types.Part(text="check")])
    events = [e async for e in runner.run_async(user_id=USER, session_id=SESSION, new_message=message)]
    [result] = [r.response for e in events for r in e.get_function_responses()]
    assert result["result"].startswith("Error validating input:") and "word" in result["result"]
    assert not [e for e in events if e.author == "checker"]  # it never ran
    await sessions.close()
