"""Shared pieces of the human-in-the-loop tests: a reimbursement agent, answers, runs."""

from __future__ import annotations

import json
from functools import partial
from typing import Any, Optional

from google.genai import types

from runtime import App, LlmAgent, ResumabilityConfig, Runner, ScriptedLlm
from runtime.models import LlmRequest
from tests.rt_helpers import collect, texts  # texts, text: for the human-in-the-loop tests too
from tests.rt_helpers import user_msg as text

APP, USER, SESSION = "hitl_app", "ana", "s1"


def confirm(request_id: str, confirmed: bool, payload: Any = None, *, web_client: bool = False) -> types.Content:
    body: dict[str, Any] = {"confirmed": confirmed}
    if payload is not None:
        body["payload"] = payload
    response = {"response": json.dumps(body)} if web_client else body
    part = types.Part(
        function_response=types.FunctionResponse(id=request_id, name="adk_request_confirmation", response=response)
    )
    return types.Content(role="user", parts=[part])


def reply(request_id: str, name: str, response: dict) -> types.Content:
    part = types.Part(function_response=types.FunctionResponse(id=request_id, name=name, response=response))
    return types.Content(role="user", parts=[part])


def brain(tool: str, **args: Any):
    """A model that calls `tool` once with `args`, then reports the tool's result as text."""

    def turn(request: LlmRequest) -> Any:
        last = request.contents[-1].parts[-1]
        if last.function_response is not None and last.function_response.name == tool:
            return f"result: {json.dumps(last.function_response.response, sort_keys=True)}"
        return ScriptedLlm.call(tool, **args)

    return ScriptedLlm([turn], cycle=True)


def make_runner(sessions: Any, tools: list, *, model: Optional[ScriptedLlm] = None, resumable: bool = False,
                tool: str = "reimburse", args: Optional[dict] = None, **kwargs: Any) -> Runner:
    agent = LlmAgent(name="clerk", model=model or brain(tool, **(args or {"amount": 50})), tools=tools)
    app = App(name=APP, root_agent=agent, resumability_config=ResumabilityConfig(is_resumable=True) if resumable else None)
    return Runner(app=app, session_service=sessions, **kwargs)


run = partial(collect, user_id=USER, session_id=SESSION)


def request_of(events: list, name: str = "adk_request_confirmation") -> types.FunctionCall:
    return next(c for e in events for c in e.get_function_calls() if c.name == name)
