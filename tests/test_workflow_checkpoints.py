"""A resumable app's workflow checkpoints (google-adk 2.13's): a snapshot of the nodes' statuses as
each starts, waits and completes, a finished node's output said again when the invocation resumes,
and end_of_agent when the workflow (a nested one too) ends; what the Runner yields is what the store
keeps, on every store. (tools/parity/apps/workflow_resumable.py compares the same with google-adk.)"""

from __future__ import annotations

from google.genai import types

from runtime import App, ResumabilityConfig, Runner, session_service_from_url
from runtime.events import Event, RequestInput
from runtime.workflow import START, Context, Workflow, node

APP, USER, SESSION = "wf_checkpoints", "u1", "s1"
RUNNING, COMPLETED, WAITING = 2, 3, 4


def build(ran: list[str]) -> Workflow:
    """START -> draft -> review (asks a person) -> posting (a nested workflow: send -> stamp)."""

    def draft(node_input: str):
        ran.append("draft")
        return f"draft of {node_input}"

    @node(rerun_on_resume=True)
    def review(node_input: str, ctx: Context):
        ran.append("review")
        if not ctx.resume_inputs.get("ok"):
            yield RequestInput(interrupt_id="ok", message=f"Send {node_input}?")
            return
        yield Event(output=node_input)

    def send(node_input: str):
        return f"sent {node_input}"

    def stamp(node_input: str):
        return f"stamped {node_input}"

    posting = Workflow(name="posting", edges=[(START, send, stamp)])
    return Workflow(name="mail", edges=[(START, draft, review, posting)])


def app(ran: list[str], resumable: bool = True) -> App:
    config = ResumabilityConfig(is_resumable=True) if resumable else None
    return App(name=APP, root_agent=build(ran), resumability_config=config)


def described(event: Event) -> tuple:
    """(who, what): a snapshot as {node: status}, an end, or the node path and output."""
    if event.actions.agent_state is not None:
        return event.author, {n: s["status"] for n, s in event.actions.agent_state["nodes"].items()}
    if event.actions.end_of_agent:
        return event.author, "end"
    if event.get_function_calls():
        return event.author, event.node_info.path, "asks"
    return event.author, event.node_info.path, event.output


async def start(runner: Runner):
    message = types.Content(role="user", parts=[types.Part(text="the letter")])
    return [e async for e in runner.run_async(user_id=USER, session_id=SESSION, new_message=message)]


async def answer(runner: Runner):
    reply = types.Content(role="user", parts=[types.Part(function_response=types.FunctionResponse(
        id="ok", name="adk_request_input", response={"result": "yes"}))])
    return [e async for e in runner.run_async(user_id=USER, session_id=SESSION, new_message=reply)]


async def test_a_resumable_workflow_records_adk_checkpoints_and_resumes_from_its_facts(store_url):
    sessions = session_service_from_url(store_url)
    await sessions.create_session(app_name=APP, user_id=USER, session_id=SESSION)
    ran: list[str] = []
    paused = await start(Runner(app=app(ran), session_service=sessions))
    assert [described(e) for e in paused] == [
        ("mail", {"draft": RUNNING}),
        ("mail", "mail@1/draft@1", "draft of the letter"),
        ("mail", {"draft": COMPLETED}),
        ("mail", {"draft": COMPLETED, "review": RUNNING}),
        ("mail", "mail@1/review@1", "asks"),
        ("mail", {"draft": COMPLETED, "review": WAITING}),
    ]  # paused: no end
    assert paused[-1].actions.agent_state["nodes"]["review"]["interrupts"] == ["ok"]

    ran.clear()  # a new process: a Runner of its own, the store as the only memory
    resumed = await answer(Runner(app=app(ran), session_service=sessions))
    assert ran == ["review"]  # draft finished before the pause: its output is said again, not made again
    assert [described(e) for e in resumed] == [
        ("mail", "mail@1/draft@1", "draft of the letter"),
        ("mail", {"draft": COMPLETED, "review": RUNNING}),
        ("mail", "mail@1/review@1", "draft of the letter"),
        ("mail", {"draft": COMPLETED, "review": COMPLETED}),
        ("mail", {"draft": COMPLETED, "review": COMPLETED, "posting": RUNNING}),
        ("posting", {"send": RUNNING}),
        ("posting", "mail@1/posting@1/send@1", "sent draft of the letter"),
        ("posting", {"send": COMPLETED}),
        ("posting", {"send": COMPLETED, "stamp": RUNNING}),
        ("posting", "mail@1/posting@1/stamp@1", "stamped sent draft of the letter"),
        ("posting", {"send": COMPLETED, "stamp": COMPLETED}),
        ("posting", "end"),
        ("mail", {"draft": COMPLETED, "review": COMPLETED, "posting": COMPLETED}),
        ("mail", "end"),
    ]
    assert resumed[0].branch is None and resumed[5].branch is None  # the workflow's branch, not the node's

    session = await sessions.get_session(app_name=APP, user_id=USER, session_id=SESSION)
    stored = [described(e) for e in session.events if e.author != "user"]
    assert stored == [described(e) for e in paused + resumed]  # what was yielded is what is kept
    await sessions.close()


async def test_a_workflow_outside_a_resumable_app_writes_no_checkpoints(store_url):
    sessions = session_service_from_url(store_url)
    await sessions.create_session(app_name=APP, user_id=USER, session_id=SESSION)
    ran: list[str] = []
    runner = Runner(app=app(ran, resumable=False), session_service=sessions)
    events = await start(runner) + await answer(runner)
    assert not [e for e in events if e.actions.agent_state is not None or e.actions.end_of_agent]
    assert [described(e)[1:] for e in events] == [
        ("mail@1/draft@1", "draft of the letter"),
        ("mail@1/review@1", "asks"),
        ("mail@1/review@1", "draft of the letter"),
        ("mail@1/posting@1/send@1", "sent draft of the letter"),
        ("mail@1/posting@1/stamp@1", "stamped sent draft of the letter"),
    ]
    assert ran == ["draft", "review", "review"]
    await sessions.close()


async def test_an_agent_node_run_again_in_a_resumable_invocation_answers_and_records_each_end(store_url):
    """A parallel worker agent, one item at a time: each run of the agent is a run of its own (its
    end recorded at its path), not skipped because an earlier run of the same agent ended."""
    from runtime import LlmAgent, ScriptedLlm
    from runtime.workflow import ParallelWorker

    def echo(request) -> str:
        return f"about {request.contents[-1].parts[0].text}"

    def split(node_input: str):
        return node_input.split()

    agent = LlmAgent(name="explain", model=ScriptedLlm([echo], cycle=True), instruction="Say.")
    flow = Workflow(name="notes", edges=[(START, split, ParallelWorker(node=node(agent), max_parallel_workers=1))])
    sessions = session_service_from_url(store_url)
    await sessions.create_session(app_name=APP, user_id=USER, session_id=SESSION)
    runner = Runner(app=App(name=APP, root_agent=flow, resumability_config=ResumabilityConfig(is_resumable=True)),
                    session_service=sessions)
    message = types.Content(role="user", parts=[types.Part(text="sea tides moon")])
    events = [e async for e in runner.run_async(user_id=USER, session_id=SESSION, new_message=message)]
    answers = [(e.node_info.path, e.content.parts[0].text) for e in events if e.author == "explain" and e.content]
    assert answers == [
        ("notes@1/explain@1/explain@1", "about sea"),
        ("notes@1/explain@1/explain@2", "about tides"),
        ("notes@1/explain@1/explain@3", "about moon"),
    ]
    ends = [e.node_info.path for e in events if e.author == "explain" and e.actions.end_of_agent]
    assert ends == ["notes@1/explain@1/explain@1", "notes@1/explain@1/explain@2", "notes@1/explain@1/explain@3"]
    assert [e.output for e in events if e.node_info.path == "notes@1/explain@1"] == [["about sea", "about tides", "about moon"]]
    assert events[-1].author == "notes" and events[-1].actions.end_of_agent
    await sessions.close()
