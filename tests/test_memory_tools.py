"""The `load_memory` and `preload_memory` agent tools, run by a real Runner with a scripted model."""

from __future__ import annotations

import pytest

from runtime import InMemoryRunner, LlmAgent, Runner, ScriptedLlm, ServiceNotConfiguredError
from runtime.memory import LogMemoryService
from runtime.sessions import session_service_from_url
from runtime.tools.load_memory import MEMORY_INSTRUCTION, load_memory_tool
from runtime.tools.preload_memory import preload_memory_tool
from tests.rt_helpers import collect
from tests.rt_helpers import user_msg as msg

APP, USER = "memory_app", "u1"


async def run(runner, session_id: str, text: str):
    return await collect(runner, msg(text), user_id=USER, session_id=session_id)


def system_text(request) -> str:
    si = request.config.system_instruction
    if si is None:
        return ""
    if isinstance(si, str):
        return si
    return "\n".join(p.text or "" for p in si.parts or [])


async def remember_first_conversation(runner) -> None:
    """Session 'old': the user says their favourite colour; it is added to memory."""
    await runner.session_service.create_session(app_name=APP, user_id=USER, session_id="old")
    await run(runner, "old", "My favourite colour is green.")
    old = await runner.session_service.get_session(app_name=APP, user_id=USER, session_id="old")
    await runner.memory_service.add_session_to_memory(old)
    await runner.session_service.create_session(app_name=APP, user_id=USER, session_id="new")


async def test_the_model_calls_load_memory_and_gets_the_remembered_text():
    model = ScriptedLlm(["Noted.", ScriptedLlm.call("load_memory", query="favourite colour"), "It is green."])
    agent = LlmAgent(name="assistant", model=model, tools=[load_memory_tool])
    runner = InMemoryRunner(agent=agent, app_name=APP)
    await remember_first_conversation(runner)
    events = await run(runner, "new", "What is my favourite colour?")
    results = [p.function_response for e in events for p in (e.content.parts if e.content else []) if p.function_response]
    assert len(results) == 1 and results[0].name == "load_memory"
    memories = results[0].response["result"].memories  # google-adk's LoadMemoryResponse
    assert memories[0].content.parts[0].text == "My favourite colour is green." and memories[0].author == "user"
    assert events[-1].content.parts[0].text == "It is green."
    # the model was told it has a memory and how to use it
    assert MEMORY_INSTRUCTION in system_text(model.requests[1])
    declared = [d.name for t in model.requests[1].config.tools for d in t.function_declarations]
    assert declared == ["load_memory"]
    await runner.close()


async def test_load_memory_results_are_stored_and_shown_in_google_adks_shape(store_url):
    sessions = session_service_from_url(store_url)
    memory = LogMemoryService(sessions.store)
    model = ScriptedLlm(["Noted.", ScriptedLlm.call("load_memory", query="favourite colour"), "It is green."])
    runner = Runner(agent=LlmAgent(name="assistant", model=model, tools=[load_memory_tool]), app_name=APP,
                    session_service=sessions, memory_service=memory)
    await remember_first_conversation(runner)
    await run(runner, "new", "What is my favourite colour?")
    new = await sessions.get_session(app_name=APP, user_id=USER, session_id="new")
    stored = next(p.function_response.response for e in new.events for p in e.content.parts if p.function_response)
    assert list(stored) == ["result"] and list(stored["result"]) == ["memories"]
    entry = stored["result"]["memories"][0]
    assert entry["content"] == {"parts": [{"text": "My favourite colour is green."}], "role": "user"}
    assert entry["author"] == "user" and entry["timestamp"] and set(entry) >= {"id", "custom_metadata"}
    shown = model.requests[2].contents[-1].parts[0].function_response.response
    assert shown["result"].memories[0].author == "user"  # the model got the same result
    await runner.close()


def memory_context(request) -> str:
    """The text of the user content preload_memory placed before the current turn ('' if none)."""
    texts = [p.text for c in request.contents for p in c.parts if p.text and "<PAST_CONVERSATIONS>" in p.text]
    return texts[0] if texts else ""


async def test_preload_memory_puts_matching_memories_before_the_current_turn(tmp_path):
    url = f"sqlite:///{tmp_path}/one.db"
    sessions = session_service_from_url(url)
    memory = LogMemoryService(sessions.store)  # one store: the index follows the sessions' logs
    model = ScriptedLlm(["Noted.", "Green, as you told me.", "Why did the penguin cross the ice?"])
    agent = LlmAgent(name="assistant", model=model, tools=[preload_memory_tool])
    runner = Runner(agent=agent, app_name=APP, session_service=sessions, memory_service=memory)
    await remember_first_conversation(runner)
    await run(runner, "new", "Remind me: which colour do I like?")
    request = model.requests[1]
    context = memory_context(request)
    assert context.startswith("The following content is from your previous conversations with the user.\n")
    assert "user: My favourite colour is green." in context
    # google-adk 2.13's place: a user content just before the user's message, not the system instruction
    assert request.contents[-2].parts[0].text == context and request.contents[-1].parts[0].text.startswith("Remind")
    assert "<PAST_CONVERSATIONS>" not in system_text(request)
    assert model.requests[1].config.tools in (None, [])  # nothing for the model to call
    # nothing matches: no memory section
    await run(runner, "new", "Tell me a joke about penguins")
    assert memory_context(model.requests[2]) == ""
    await runner.close()


async def test_memory_tools_without_a_memory_service_say_so():
    from runtime.sessions import InMemorySessionService

    model = ScriptedLlm(["hi", ScriptedLlm.call("load_memory", query="colour")])
    # preload_memory only logs a failed search and leaves the request as it is (as google-adk does)
    agent = LlmAgent(name="assistant", model=model, tools=[preload_memory_tool])
    runner = Runner(agent=agent, app_name=APP, session_service=InMemorySessionService())
    await runner.session_service.create_session(app_name=APP, user_id=USER, session_id="s")
    await run(runner, "s", "hello")
    assert memory_context(model.requests[0]) == ""
    # a tool the model calls says what is missing
    agent = LlmAgent(name="assistant", model=model, tools=[load_memory_tool])
    runner = Runner(agent=agent, app_name=APP, session_service=runner.session_service)
    with pytest.raises(ServiceNotConfiguredError, match="(?i)memory service"):
        await run(runner, "s", "what colour?")
    await runner.close()
