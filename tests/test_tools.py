"""Agent tools: declarations inferred from Python, calling conventions, concurrency, AgentTool,
long-running tools."""

from __future__ import annotations

import asyncio
import enum
import threading
from typing import Literal, Optional

import pytest
from google.genai import types
from pydantic import BaseModel, Field

from runtime import (
    AgentTool,
    FunctionTool,
    LlmAgent,
    LongRunningFunctionTool,
    ScriptedLlm,
    ToolContext,
)
from runtime.agents.tool_calls import ToolNotFoundError
from runtime.run_config import RunConfig, ToolThreadPoolConfig
from tests.rt_helpers import USER, SESSION, content_texts, new_runner, send, stored, texts


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Address(BaseModel):
    """A postal address."""

    street: str
    city: str = Field(description="The city.")
    zip_code: Optional[str] = None


def book_trip(
    destination: str,
    nights: int,
    budget: float,
    refundable: bool,
    tags: list[str],
    color: Color,
    mode: Literal["train", "plane"],
    address: Address,
    note: Optional[str] = None,
    travellers: int = 1,
    tool_context: Optional[ToolContext] = None,
) -> dict:
    """Books a trip.

    Args:
      destination: Where to go.
      nights: How many nights
        (continued on a second line).
      budget: Maximum spend in euros.
      refundable: Whether the booking must be refundable.
      tags: Labels for the trip.
      color: Suitcase color.
      mode: How to travel.
      address: Where to send the tickets.
      note: Anything else.
      travellers: Number of people.

    Returns:
      The booking.
    """
    return {}


def test_declaration_is_inferred_from_signature_hints_and_docstring_as_google_adk_does():
    declaration = FunctionTool(book_trip)._get_declaration()
    assert declaration.name == "book_trip"
    # The whole docstring is the description; parameters get no descriptions of their own (2.13's way).
    assert declaration.description.startswith("Books a trip.\n\nArgs:\n  destination: Where to go.")
    assert declaration.parameters is None
    params = declaration.parameters_json_schema
    assert params["title"] == "book_tripParams" and params["type"] == "object"
    props = params["properties"]
    assert list(props) == [
        "destination", "nights", "budget", "refundable", "tags", "color", "mode", "address", "note", "travellers",
    ]
    assert "tool_context" not in props
    assert params["required"] == ["destination", "nights", "budget", "refundable", "tags", "color", "mode", "address"]
    assert props["destination"] == {"title": "Destination", "type": "string"}
    assert props["nights"]["type"] == "integer" and props["budget"]["type"] == "number"
    assert props["refundable"]["type"] == "boolean"
    assert props["tags"] == {"items": {"type": "string"}, "title": "Tags", "type": "array"}
    assert props["color"] == {"$ref": "#/$defs/Color"} and params["$defs"]["Color"]["enum"] == ["red", "blue"]
    assert props["mode"]["enum"] == ["train", "plane"]
    address = params["$defs"]["Address"]
    assert address["required"] == ["street", "city"] and address["properties"]["city"]["description"] == "The city."
    assert props["note"]["anyOf"] == [{"type": "string"}, {"type": "null"}] and props["note"]["default"] is None
    assert props["travellers"]["default"] == 1


class Opaque:
    pass


def inspect_it(thing: Opaque, times: int = 2) -> str:
    """Looks at a thing.

    Args:
      thing: The thing.
    """
    return ""


def test_a_type_pydantic_cannot_describe_is_declared_from_the_hints():
    declaration = FunctionTool(inspect_it)._get_declaration()
    assert declaration.parameters_json_schema is None
    assert declaration.parameters.required == ["thing"] and declaration.parameters.properties["times"].default == 2
    assert declaration.parameters.properties["thing"].description == "The thing."


def test_declaration_of_a_function_without_parameters_or_docstring():
    def ping():
        return "pong"

    declaration = FunctionTool(ping)._get_declaration()
    assert declaration.name == "ping" and declaration.parameters is None and declaration.description is None


async def test_arguments_are_converted_filtered_and_checked():
    received = {}

    def order(address: Address, color: Color, count: int) -> dict:
        received.update(address=address, color=color, count=count)
        return {"ok": True}

    tool = FunctionTool(order)
    agent = LlmAgent(
        name="a",
        model=ScriptedLlm(
            [
                ScriptedLlm.call("order", address={"street": "1 Main", "city": "Oslo"}, color="red", count=2, bogus=1),
                ScriptedLlm.call("order", color="red"),
                "done",
            ]
        ),
        tools=[tool],
    )
    runner = await new_runner(agent)
    events = await send(runner, "go")
    assert received == {"address": Address(street="1 Main", city="Oslo"), "color": Color.RED, "count": 2}
    assert events[1].get_function_responses()[0].response == {"ok": True}
    error = events[3].get_function_responses()[0].response["error"]
    assert "mandatory input parameters are not present:\naddress\ncount\nYou could retry" in error


async def test_sync_tools_run_on_the_loop_unless_the_run_asks_for_a_thread_pool_and_results_are_wrapped():
    threads = {}

    def sync_tool() -> int:
        threads.setdefault("sync", []).append(threading.get_ident())
        return 7

    async def async_tool() -> list:
        threads.setdefault("async", []).append(threading.get_ident())
        return [1, 2]

    script = [ScriptedLlm.calls(("sync_tool", {}), ("async_tool", {})), "done"] * 2
    agent = LlmAgent(name="a", model=ScriptedLlm(script), tools=[sync_tool, FunctionTool(async_tool)])
    runner = await new_runner(agent)
    events = await send(runner, "go")  # as google-adk 2.13: both on the loop
    assert threads == {"sync": [threading.get_ident()], "async": [threading.get_ident()]}
    responses = events[1].get_function_responses()
    assert [r.response for r in responses] == [{"result": 7}, {"result": [1, 2]}]
    pooled = RunConfig(tool_thread_pool_config=ToolThreadPoolConfig(max_workers=2))
    await send(runner, "again", run_config=pooled)  # the sync one on the pool, the async one still on the loop
    assert threads["async"][1] == threading.get_ident() != threads["sync"][1]


async def test_several_calls_in_one_turn_run_concurrently_and_merge_into_one_event():
    started = {"a": asyncio.Event(), "b": asyncio.Event()}

    async def fetch(source: str, tool_context: ToolContext) -> dict:
        started[source].set()
        other = "b" if source == "a" else "a"
        await asyncio.wait_for(started[other].wait(), 2)  # would time out if the calls ran one by one
        tool_context.state[f"fetched_{source}"] = True
        return {"source": source, "call_id": tool_context.function_call_id}

    model = ScriptedLlm([ScriptedLlm.calls(("fetch", {"source": "a"}), ("fetch", {"source": "b"})), "both fetched"])
    runner = await new_runner(LlmAgent(name="a", model=model, tools=[fetch]))
    events = await send(runner, "go")
    call_event, result_event, answer = events
    call_ids = [c.id for c in call_event.get_function_calls()]
    responses = result_event.get_function_responses()
    assert [r.id for r in responses] == call_ids
    assert [r.response["call_id"] for r in responses] == call_ids
    assert result_event.actions.state_delta == {"fetched_a": True, "fetched_b": True}
    assert answer.text() == "both fetched"
    assert content_texts(model.requests[1].contents) == ["user:go", "model:call:fetch", "model:call:fetch",
                                                         "user:result:fetch", "user:result:fetch"]


async def test_model_call_without_id_gets_one_and_the_model_never_sees_it():
    content = types.Content(role="model", parts=[types.Part(function_call=types.FunctionCall(name="ping", args={}))])

    def ping() -> str:
        return "pong"

    model = ScriptedLlm([content, "ok"])
    runner = await new_runner(LlmAgent(name="a", model=model, tools=[ping]))
    events = await send(runner, "go")
    call_id = events[0].get_function_calls()[0].id
    assert call_id.startswith("adk-") and events[1].get_function_responses()[0].id == call_id
    assert content.parts[0].function_call.id is None  # the model's object is not modified
    sent = model.requests[1].contents
    assert sent[1].parts[0].function_call.id is None and sent[2].parts[0].function_response.id is None


async def test_an_unknown_tool_is_reported_to_the_model_as_in_adk():
    def hello() -> str:
        return "hi"

    heard = []

    def on_error(tool, args, tool_context, error):
        heard.append((tool.name, type(error)))

    model = ScriptedLlm([ScriptedLlm.call("nope"), "sorry"])
    runner = await new_runner(LlmAgent(name="a", model=model, tools=[hello], on_tool_error_callback=on_error))
    events = await send(runner, "go")
    assert heard == [("nope", ToolNotFoundError)]  # the error callbacks may still answer it
    [response] = events[1].get_function_responses()
    assert response.name == "nope" and response.response == {
        "error": "Invoking `nope()` failed as no tool with that name is available. The tools you can call are: "
        "hello. You could retry, but it is IMPORTANT that you only call a tool from that list."
    }
    assert events[-1].text() == "sorry" and not any(e.error_code for e in events)

    def answer(tool, args, tool_context):  # a before_tool_callback can answer the call itself
        return {"answered": tool.name}

    model = ScriptedLlm([ScriptedLlm.call("nope"), "ok"])
    runner = await new_runner(LlmAgent(name="a", model=model, before_tool_callback=answer))
    events = await send(runner, "go")
    assert events[1].get_function_responses()[0].response == {"answered": "nope"}


async def test_plain_callables_are_wrapped_once():
    def hello() -> str:
        return "hi"

    agent = LlmAgent(name="a", tools=[hello])
    first = await agent.canonical_tools()
    second = await agent.canonical_tools()
    assert isinstance(first[0], FunctionTool) and first[0] is second[0]


# -- AgentTool ---------------------------------------------------------------------------------


async def test_agent_tool_runs_the_agent_and_returns_its_answer_and_state():
    def remember(fact: str, tool_context: ToolContext) -> str:
        tool_context.state["fact"] = fact
        return "saved"

    helper_model = ScriptedLlm([ScriptedLlm.call("remember", fact="sky is blue"), "The sky is blue."])
    helper = LlmAgent(name="researcher", description="Finds facts.", model=helper_model, tools=[remember])
    main_model = ScriptedLlm([ScriptedLlm.call("researcher", request="What colour is the sky?"), "Blue, it says."])
    main = LlmAgent(name="main", model=main_model, tools=[AgentTool(helper)])
    runner = await new_runner(main, state={"user:name": "Ada"})
    events = await send(runner, "Ask the researcher")

    declaration = main_model.requests[0].config.tools[0].function_declarations[0]
    assert declaration.name == "researcher" and declaration.description == "Finds facts."
    assert declaration.parameters_json_schema["required"] == ["request"]
    assert content_texts(helper_model.requests[0].contents) == ["user:What colour is the sky?"]
    result = events[1].get_function_responses()[0]
    assert result.response == {"result": "The sky is blue."}
    assert events[1].actions.state_delta == {"fact": "sky is blue"}
    session = await stored(runner)
    assert session.state["fact"] == "sky is blue"
    assert texts(events) == ["Blue, it says."]
    assert {e.author for e in session.events} == {"user", "main"}  # the helper's own events stay in its session


class Summary(BaseModel):
    title: str
    words: int


class Request(BaseModel):
    text: str


async def test_agent_tool_with_input_and_output_schemas():
    helper_model = ScriptedLlm(['{"title": "Hi", "words": 2}'])
    helper = LlmAgent(name="summarizer", model=helper_model, input_schema=Request, output_schema=Summary)
    main = LlmAgent(
        name="main",
        model=ScriptedLlm([ScriptedLlm.call("summarizer", text="Hello there"), "ok"]),
        tools=[AgentTool(helper, skip_summarization=True)],
    )
    runner = await new_runner(main)
    events = await send(runner, "summarize")
    assert content_texts(helper_model.requests[0].contents) == ['user:{"text":"Hello there"}']
    assert events[1].get_function_responses()[0].response == {"title": "Hi", "words": 2}
    # skip_summarization: the tool's result is the final answer, no second model call.
    assert len(events) == 2 and events[1].is_final_response()


# -- long-running tools ----------------------------------------------------------------------


async def test_long_running_tool_pauses_and_its_later_result_continues_the_conversation():
    def ask_approval(amount: int, tool_context: ToolContext) -> None:
        tool_context.state["pending_amount"] = amount
        return None  # the answer comes from a human, later

    tool = LongRunningFunctionTool(ask_approval)
    assert "long-running operation" in tool._get_declaration().description
    model = ScriptedLlm([ScriptedLlm.call("ask_approval", amount=500), "Approved, paying 500."])
    runner = await new_runner(LlmAgent(name="a", model=model, tools=[tool]))

    events = await send(runner, "pay 500")
    assert len(events) == 1 and len(model.requests) == 1
    call = events[0].get_function_calls()[0]
    assert events[0].long_running_tool_ids == {call.id}
    assert events[0].is_final_response()

    answer = types.Content(
        role="user",
        parts=[types.Part(function_response=types.FunctionResponse(id=call.id, name="ask_approval", response={"approved": True}))],
    )
    events = [e async for e in runner.run_async(user_id=USER, session_id=SESSION, new_message=answer)]
    assert texts(events) == ["Approved, paying 500."]
    assert content_texts(model.requests[1].contents) == ["user:pay 500", "model:call:ask_approval", "user:result:ask_approval"]
    # As in ADK 2.13, the answer and what follows it are recorded in the call's invocation.
    session = await runner.session_service.get_session(app_name=runner.app_name, user_id=USER, session_id=SESSION)
    first = session.events[0].invocation_id
    assert {e.invocation_id for e in session.events} == {first}


async def test_long_running_tool_with_an_interim_status_then_a_late_result():
    def start_job(tool_context: ToolContext) -> dict:
        return {"status": "pending"}

    model = ScriptedLlm([ScriptedLlm.call("start_job"), "The job is running.", "The job finished: 42."])
    runner = await new_runner(LlmAgent(name="a", model=model, tools=[LongRunningFunctionTool(start_job)]))
    events = await send(runner, "start")
    call_id = events[0].get_function_calls()[0].id
    assert texts(events) == ["The job is running."]
    final = types.Content(
        role="user",
        parts=[types.Part(function_response=types.FunctionResponse(id=call_id, name="start_job", response={"result": 42}))],
    )
    [e async for e in runner.run_async(user_id=USER, session_id=SESSION, new_message=final)]
    contents = model.requests[2].contents
    # The request ends at the call and its (latest) result, which replaced the pending status.
    assert content_texts(contents) == ["user:start", "model:call:start_job", "user:result:start_job"]
    assert contents[-1].parts[0].function_response.response == {"result": 42}


async def test_tool_context_searches_the_users_memory():
    import runtime.memory as memory
    found = {}

    async def recall(topic: str, tool_context: ToolContext) -> dict:
        response = await tool_context.search_memory(topic)
        found["texts"] = [m.content.parts[0].text for m in response.memories if m.content.parts]
        return {"count": len(response.memories)}

    model = ScriptedLlm(["Noted: your cat is called Miso.", ScriptedLlm.call("recall", topic="cat Miso"), "You have a cat."])
    runner = await new_runner(LlmAgent(name="a", model=model, tools=[recall]))
    await send(runner, "My cat is called Miso")
    await runner.memory_service.add_session_to_memory(await stored(runner))
    await runner.session_service.create_session(app_name=runner.app_name, user_id=USER, session_id="later")
    events = await send(runner, "What pet do I have?", session_id="later")
    assert events[1].get_function_responses()[0].response["count"] >= 1
    assert any("Miso" in text for text in found["texts"])
