"""Workflows and function nodes as an LlmAgent's tools (google-adk 2.13's NodeTool), persisted:
the node's events are stored before the call's result, a node that asks a person pauses the call,
and the answer (to another Runner over the same store, as after a restart) runs the call again
with the node resuming, in resumable and plain apps. (tools/parity/apps/workflow_node_as_tool.py
compares the same shape with google-adk itself.)"""

from __future__ import annotations

import pytest
from google.genai import types
from pydantic import BaseModel

from projections.workflow import fold_all
from runtime import App, LlmAgent, ResumabilityConfig, Runner, ScriptedLlm, session_service_from_url
from runtime.events import Event, RequestInput
from runtime.workflow import START, Context, Workflow, node
from runtime.workflow.node_tool import NodeTool

APP, USER = "shop", "u1"


class Order(BaseModel):
    order_id: str


def tools_and_log() -> tuple[list, list[str]]:
    ran: list[str] = []

    def find_order(node_input: Order):
        ran.append("find_order")
        return {"item": "phone", "price": 300, "order_id": node_input.order_id}

    lookup = Workflow(name="lookup", description="Finds an order.", input_schema=Order, edges=[(START, find_order)])

    @node(rerun_on_resume=True)
    def refund(item: str, price: int, ctx: Context):
        """Refunds an item."""
        ran.append("refund")
        yield Event(message=f"checking {item}")
        answer = ctx.resume_inputs.get("approve")
        if not answer:
            yield RequestInput(interrupt_id="approve", message=f"Refund {price}?")
            return
        yield f"refunded {price}" if answer == "yes" else "declined"

    return [lookup, refund], ran


def clerk_model() -> ScriptedLlm:
    def after_lookup(request):
        found = request.contents[-1].parts[0].function_response.response
        return ScriptedLlm.call("refund", item=found["item"], price=found["price"])

    def summary(request):
        return f"done: {request.contents[-1].parts[0].function_response.response['result']}"

    return ScriptedLlm([ScriptedLlm.call("lookup", order_id="A7"), after_lookup, summary])


def app(resumable: bool, tools: list, llm: ScriptedLlm) -> App:
    agent = LlmAgent(name="clerk", model=llm, instruction="Help.", tools=tools)
    return App(name=APP, root_agent=agent, resumability_config=ResumabilityConfig(is_resumable=resumable))


def text(words: str) -> types.Content:
    return types.Content(role="user", parts=[types.Part(text=words)])


@pytest.mark.parametrize("resumable", [True, False], ids=["resumable", "plain"])
async def test_a_node_tool_pauses_for_input_and_resumes_from_the_store(store_url, resumable):
    sessions = session_service_from_url(store_url)
    session = await sessions.create_session(app_name=APP, user_id=USER)
    tools, ran = tools_and_log()
    llm = clerk_model()
    runner = Runner(app=app(resumable, tools, llm), session_service=sessions)
    first = [e async for e in runner.run_async(user_id=USER, session_id=session.id, new_message=text("refund A7"))]
    request = first[-1]
    assert request.get_function_calls()[0].name == "adk_request_input" and request.long_running_tool_ids
    call_id = next(c.id for e in first for c in e.get_function_calls() if c.name == "refund")
    assert (request.author, request.node_info.path, request.branch) == ("refund", f"clerk@1/refund@{call_id}", f"refund@{call_id}")
    assert ran == ["find_order", "refund"]
    lookup_output = next(e for e in first if e.output is not None)
    assert lookup_output.author == "lookup" and lookup_output.node_info.path.endswith("/find_order@1")
    assert not any(r.name == "refund" for e in first for r in e.get_function_responses())  # no result yet

    # the answer goes to a new Runner over the same store (as after a restart)
    tools, ran = tools_and_log()
    llm = ScriptedLlm([lambda r: f"done: {r.contents[-1].parts[0].function_response.response['result']}"])
    runner = Runner(app=app(resumable, tools, llm), session_service=sessions)
    answer = types.Content(role="user", parts=[types.Part(function_response=types.FunctionResponse(
        id="approve", name="adk_request_input", response={"result": "yes"}))])
    second = [e async for e in runner.run_async(user_id=USER, session_id=session.id, new_message=answer)]
    assert ran == ["refund"]  # the lookup's result is in the log: only the waiting node runs again
    result = next(r for e in second for r in e.get_function_responses() if r.name == "refund")
    assert result.id == call_id and result.response == {"result": "refunded 300"}
    assert [e.content.parts[0].text for e in second if e.content and e.content.parts[0].text][-1] == "done: refunded 300"
    assert {e.invocation_id for e in first + second} == {first[0].invocation_id}
    # the model saw the call's result, not the node's messages nor the person's answer
    seen = [p for c in llm.requests[-1].contents for p in c.parts]
    assert not any(p.text and "checking" in p.text for p in seen)
    assert not any(p.function_response and p.function_response.name == "adk_request_input" for p in seen)

    stored = await sessions.get_session(app_name=APP, user_id=USER, session_id=session.id)
    runs = fold_all(stored.log_events()).nodes
    assert runs[f"clerk@1/refund@{call_id}"].status == "completed"
    assert runs[f"clerk@1/refund@{call_id}"].output == "refunded 300"
    await sessions.close()


def test_the_declaration_is_the_nodes_input():
    tools, _ = tools_and_log()
    lookup, refund = (NodeTool(t) for t in tools)
    assert lookup._get_declaration().parameters_json_schema["properties"] == {
        "order_id": {"title": "Order Id", "type": "string"}
    }
    declared = refund._get_declaration()
    assert declared.description == "Refunds an item."
    assert declared.parameters_json_schema["required"] == ["item", "price"]


async def test_bad_arguments_are_the_models_to_correct_and_run_nothing():
    tools, ran = tools_and_log()
    refund = NodeTool(tools[1])
    answer = await refund.run_async(args={"item": "phone", "price": "lots"}, tool_context=None)
    assert answer["error"].startswith("Invoking `refund()` failed due to argument validation errors")
    assert ran == []


def test_an_agent_is_no_node_tool():
    with pytest.raises(ValueError, match="cannot be wrapped"):
        NodeTool(LlmAgent(name="helper", model=ScriptedLlm(["x"])))


async def test_two_node_calls_in_one_turn_each_commit_their_events(store_url):
    sessions = session_service_from_url(store_url)
    session = await sessions.create_session(app_name=APP, user_id=USER)
    tools, ran = tools_and_log()
    both = ScriptedLlm.calls(("lookup", {"order_id": "A1"}), ("lookup", {"order_id": "B2"}))
    llm = ScriptedLlm([both, "found both"])
    runner = Runner(app=app(False, tools[:1], llm), session_service=sessions)
    events = [e async for e in runner.run_async(user_id=USER, session_id=session.id, new_message=text("A1 and B2"))]
    outputs = sorted(e.output["order_id"] for e in events if e.output is not None)
    assert outputs == ["A1", "B2"] and ran == ["find_order", "find_order"]
    results = [r for e in events for r in e.get_function_responses()]
    assert [r.response["order_id"] for r in results] == ["A1", "B2"]  # one event, in call order
    assert len({e.id for e in events if e.get_function_responses()}) == 1
    stored = await sessions.get_session(app_name=APP, user_id=USER, session_id=session.id)
    branches = {e.branch for e in stored.events if e.output is not None}
    assert branches == {f"lookup@{p.function_call.id}" for p in both.parts}
    await sessions.close()
