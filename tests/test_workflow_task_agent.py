"""Task-mode agents (`mode="task"`) as workflow nodes, persisted: the agent's text turn leaves the
node waiting for the user; the reply (to another Runner over the same store, as after a restart)
continues the same invocation and the agent sees its whole talk; finish_task's arguments are the
node's output and the next node runs on them; a bad finish_task call is the model's to correct.
(tools/parity/apps/workflow_task_agent.py compares the same shape with google-adk itself.)"""

from __future__ import annotations

from google.genai import types
from pydantic import BaseModel

from projections.workflow import fold_all
import pytest

from runtime import App, LlmAgent, ResumabilityConfig, Runner, ScriptedLlm, session_service_from_url
from runtime.events import Event
from runtime.workflow import START, Workflow

APP, USER = "reception", "u1"


class Caller(BaseModel):
    name: str
    phone: str


def finish(**args) -> types.Content:
    return types.Content(role="model", parts=[types.Part(function_call=types.FunctionCall(name="finish_task", args=args))])


def reception(llm: ScriptedLlm, greeted: list[str]) -> Workflow:
    intake = LlmAgent(name="intake", mode="task", model=llm, instruction="Get name and phone.", output_schema=Caller,
                      output_key="caller")

    def greet(node_input: Caller):
        greeted.append(node_input.name)
        return Event(message=f"Hello {node_input.name}")

    return Workflow(name="reception", edges=[(START, intake, greet)])


def text(words: str) -> types.Content:
    return types.Content(role="user", parts=[types.Part(text=words)])


def runner_for(workflow: Workflow, sessions, resumable: bool) -> Runner:
    app = App(name=APP, root_agent=workflow, resumability_config=ResumabilityConfig(is_resumable=resumable))
    return Runner(app=app, session_service=sessions)


@pytest.mark.parametrize("resumable", [True, False], ids=["resumable", "plain"])
async def test_a_task_agent_talks_over_turns_then_hands_in_its_result(store_url, resumable):
    sessions = session_service_from_url(store_url)
    session = await sessions.create_session(app_name=APP, user_id=USER)
    greeted: list[str] = []
    runner = runner_for(reception(ScriptedLlm(["Your phone number?"]), greeted), sessions, resumable)
    first = [e async for e in runner.run_async(user_id=USER, session_id=session.id, new_message=text("I am Ann"))]
    assert [e.content.parts[0].text for e in first if e.content] == ["Your phone number?"]
    assert greeted == []  # the workflow waits at the task agent

    # a wrong finish_task first (the model corrects itself), then the right one
    llm = ScriptedLlm([finish(name="Ann"), finish(name="Ann", phone="555")])
    runner = runner_for(reception(llm, greeted), sessions, resumable)
    second = [e async for e in runner.run_async(user_id=USER, session_id=session.id, new_message=text("555"))]
    assert {e.invocation_id for e in first + second} == {first[0].invocation_id}  # the reply continues it
    seen = [p.text for c in llm.requests[0].contents for p in c.parts if p.text]
    assert seen == ["555", "Your phone number?", "555"]  # the reply first (as ADK), then the talk so far
    errors = [r.response for e in second for r in e.get_function_responses() if "error" in r.response]
    assert len(errors) == 1 and "validation errors" in errors[0]["error"]
    done = next(e for e in second if e.output is not None)
    assert done.output == {"name": "Ann", "phone": "555"} and done.actions.state_delta == {"caller": done.output}
    assert greeted == ["Ann"] and [e for e in second if e.content][-1].content.parts[0].text == "Hello Ann"

    stored = await sessions.get_session(app_name=APP, user_id=USER, session_id=session.id)
    runs = fold_all(stored.log_events()).nodes
    assert runs["reception@1/intake@1"].status == "completed"
    assert runs["reception@1/intake@1"].output == {"name": "Ann", "phone": "555"}
    assert stored.state["caller"] == {"name": "Ann", "phone": "555"}
    await sessions.close()


def test_a_task_agent_has_finish_task_and_keeps_its_output_schema_for_it():
    agent = LlmAgent(name="intake", mode="task", output_schema=Caller, model=ScriptedLlm(["x"]))
    (tool,) = agent.tools
    declared = tool._get_declaration()
    assert declared.name == "finish_task" and declared.parameters_json_schema["required"] == ["name", "phone"]
    plain = LlmAgent(name="helper", mode="task", model=ScriptedLlm(["x"]))
    assert plain.tools[0]._get_declaration().parameters_json_schema["required"] == ["result"]


@pytest.mark.parametrize("resumable", [True, False], ids=["resumable", "plain"])
async def test_two_task_agents_waiting_at_once_share_the_users_replies_as_google_adk(store_url, resumable):
    """Both wait for the user: each reply continues the invocation they wait in (also when the last
    event is one agent's finish, the other still waiting); every agent still waiting takes it, but
    only the one whose talk went on last sees it in its history (ADK's scoping of the message)."""
    sessions = session_service_from_url(store_url)
    session = await sessions.create_session(app_name=APP, user_id=USER)
    color_llm = ScriptedLlm(["Which color?", finish(result="blue")])
    size_llm = ScriptedLlm(["Which size?", "Which size, really?", finish(result="large")])
    color = LlmAgent(name="color", mode="task", model=color_llm, instruction="Ask for a color.")
    size = LlmAgent(name="size", mode="task", model=size_llm, instruction="Ask for a size.")
    ordered: list[dict] = []

    def order(node_input: dict):
        ordered.append(node_input)
        return "ordered"

    from runtime.workflow import JoinNode

    flow = Workflow(name="shop", edges=[(START, (color, size), JoinNode(name="both"), order)])
    invocations = []
    for words in ["a shirt", "blue", "large"]:  # each turn to another service on the store (a restart)
        turn_sessions = session_service_from_url(store_url) if store_url != "memory://" else sessions
        runner = runner_for(flow, turn_sessions, resumable)
        events = [e async for e in runner.run_async(user_id=USER, session_id=session.id, new_message=text(words))]
        invocations.append({e.invocation_id for e in events})
        if turn_sessions is not sessions:
            await turn_sessions.close()
    await sessions.close()
    assert invocations[0] == invocations[1] == invocations[2]  # one invocation, continued twice
    assert ordered == [{"color": {"result": "blue"}, "size": {"result": "large"}}]
    seen = [[p.text for c in r.contents for p in c.parts if p.text] for r in size_llm.requests]
    # "blue" came while size's talk went on last: it is in size's history; "large" too
    assert seen[1] == ["blue", "Which size?", "blue"] and seen[2][-1] == "large"
    assert [p.text for c in color_llm.requests[1].contents for p in c.parts if p.text] == ["blue", "Which color?"]
