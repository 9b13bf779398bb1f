"""Open requests are read one way (issue 32): the Runner, `chronicle pending`, the server's `/pending`
routes and the answer route agree on a session's open requests after a rewind hides a request and
after that rewind is undone (before, the server folded raw events: it hid the request the Runner
would accept, and the answer route said "answered already"). On every store, through the real ASGI
app and the Runner it serves."""

from __future__ import annotations

import textwrap
from functools import partial

import httpx
import pytest
from google.genai import types

from domain.errors import InvalidAnswerError
from projections.pending import open_requests
from runtime.server.app import create_app
from runtime.server.config import ServerConfig
from tools.cli.commands.pending import pending_requests
from tests.rt_helpers import collect
from tests.rt_helpers import user_msg as _message

APP, USER, SESSION = "booker", "ann", "s1"
PATH = f"/apps/{APP}/users/{USER}/sessions/{SESSION}"

AGENT = textwrap.dedent('''
    from runtime import LlmAgent, ScriptedLlm
    from runtime.tools.request_input_tool import request_input


    def asker(request):
        last = request.contents[-1].parts[-1]
        if last.function_response is not None:
            return f"booking for {last.function_response.response['answer']}"
        return ScriptedLlm.call("adk_request_input", message="Which day?", response_schema={"type": "string"})


    root_agent = LlmAgent(name="clerk", model=ScriptedLlm([asker], cycle=True), tools=[request_input])
''')


def _answer(request_id: str) -> types.Content:
    reply = types.FunctionResponse(id=request_id, name="adk_request_input", response={"answer": "Monday"})
    return types.Content(role="user", parts=[types.Part(function_response=reply)])


_run = partial(collect, user_id=USER, session_id=SESSION)


async def _open_everywhere(services, client) -> dict[str, list[str]]:
    """The open request ids as each reader sees them."""
    session = await services.sessions.get_session(app_name=APP, user_id=USER, session_id=SESSION)
    cli = await services.store.call(pending_requests, services.store, APP, USER)
    return {
        "runner": list(open_requests(session.live_events())),
        "chronicle pending": [request.call_id for _, request in cli],
        "GET session/pending": [r["call_id"] for r in (await client.get(PATH + "/pending")).json()],
        "GET app/pending": [r["call_id"] for r in (await client.get(f"/apps/{APP}/pending")).json()],
    }


async def test_every_reader_agrees_on_open_requests_across_a_rewind_and_its_undoing(store_url, tmp_path):
    (tmp_path / "agents" / APP).mkdir(parents=True)
    (tmp_path / "agents" / APP / "agent.py").write_text(AGENT)
    app = create_app(ServerConfig(agents_dir=str(tmp_path / "agents"), store_url=store_url))
    async with app.router.lifespan_context(app):
        services = app.state.services
        runner = await services.runner(APP)
        await services.sessions.create_session(app_name=APP, user_id=USER, session_id=SESSION)
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as client:
            asked = await _run(runner, _message("book a table"))
            [call] = [c for e in asked for c in e.get_function_calls() if c.name == "adk_request_input"]
            everywhere = {reader: [call.id] for reader in
                          ("runner", "chronicle pending", "GET session/pending", "GET app/pending")}
            assert await _open_everywhere(services, client) == everywhere

            # A rewind to before the asking turn hides the request from every reader.
            marker = await runner.rewind_async(user_id=USER, session_id=SESSION,
                                               rewind_before_invocation_id=asked[0].invocation_id)
            assert await _open_everywhere(services, client) == {reader: [] for reader in everywhere}
            refused = await client.post(PATH + f"/pending/{call.id}", json={"payload": {"answer": "Friday"}})
            assert refused.status_code == 409, refused.text
            with pytest.raises(InvalidAnswerError):
                await _run(runner, _answer(call.id))

            # Undoing the rewind brings it back everywhere, and the answer route answers it.
            await runner.rewind_async(user_id=USER, session_id=SESSION,
                                      rewind_before_invocation_id=marker.invocation_id)
            assert await _open_everywhere(services, client) == everywhere
            answered = await client.post(PATH + f"/pending/{call.id}", json={"payload": {"answer": "Friday"}})
            assert answered.status_code == 200, answered.text
            assert "booking for Friday" in [p.get("text") for e in answered.json()["events"]
                                            for p in (e.get("content") or {}).get("parts", [])]

            # Answered: nobody lists it, the route says so, and the Runner refuses a second answer.
            assert await _open_everywhere(services, client) == {reader: [] for reader in everywhere}
            again = await client.post(PATH + f"/pending/{call.id}", json={"payload": {"answer": "Friday"}})
            assert again.status_code == 409, again.text
            with pytest.raises(InvalidAnswerError):
                await _run(runner, _answer(call.id))
