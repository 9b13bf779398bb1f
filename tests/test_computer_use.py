"""Computer use (runtime.tools.computer_use) driven end to end: the real google-genai client
against the local Gemini-protocol server, a Runner over every store, and a small fake computer of
our own that records what it was asked to do."""

from __future__ import annotations

import base64

import pytest

from runtime import LlmAgent, Runner
from runtime.models import Gemini
from runtime.tools.computer_use import BaseComputer, ComputerEnvironment, ComputerState, ComputerUseToolset
from tests.gemini_server import GeminiServer, gemini_server  # noqa: F401 - a fixture, used by name
from tests.hitl_helpers import APP, SESSION, USER, confirm, request_of, run  # noqa: F401 - the session conftest's `sessions` makes
from tests.rt_helpers import user_msg

PNG = b"\x89PNG\r\n\x1a\n fake screenshot"


class RecordingComputer(BaseComputer):
    """A 1920x1080 "browser" that logs each action and answers with the same screenshot."""

    def __init__(self) -> None:
        self.actions: list[tuple] = []
        self.url = "https://example.com/"
        self.initialized = self.closed = 0

    async def initialize(self) -> None:
        self.initialized += 1

    async def close(self) -> None:
        self.closed += 1

    async def screen_size(self) -> tuple[int, int]:
        return (1920, 1080)

    async def environment(self) -> ComputerEnvironment:
        return ComputerEnvironment.ENVIRONMENT_BROWSER

    def _did(self, *action) -> ComputerState:
        self.actions.append(action)
        return ComputerState(screenshot=PNG, url=self.url)

    async def open_web_browser(self): return self._did("open")
    async def click_at(self, x: int, y: int): return self._did("click_at", x, y)
    async def hover_at(self, x: int, y: int): return self._did("hover_at", x, y)
    async def type_text_at(self, x: int, y: int, text: str, press_enter: bool = True, clear_before_typing: bool = True):
        return self._did("type_text_at", x, y, text, press_enter)
    async def scroll_document(self, direction: str): return self._did("scroll_document", direction)
    async def scroll_at(self, x: int, y: int, direction: str, magnitude: int):
        return self._did("scroll_at", x, y, direction, magnitude)
    async def wait(self, seconds: int): return self._did("wait", seconds)
    async def go_back(self): return self._did("go_back")
    async def go_forward(self): return self._did("go_forward")
    async def search(self): return self._did("search")
    async def key_combination(self, keys: list[str]): return self._did("keys", *keys)
    async def drag_and_drop(self, x: int, y: int, destination_x: int, destination_y: int):
        return self._did("drag", x, y, destination_x, destination_y)
    async def current_state(self): return ComputerState(screenshot=PNG, url=self.url)

    async def navigate(self, url: str):
        self.url = url
        return self._did("navigate", url)


def browser_runner(gemini_server, sessions, computer, model="gemini-2.5-computer-use-preview-10-2025", **toolset):
    llm = Gemini(model=model, api_key="test-key", base_url=gemini_server.url)
    agent = LlmAgent(name="browser", model=llm, instruction="Use the browser.",
                     tools=[ComputerUseToolset(computer=computer, **toolset)])
    return Runner(app_name=APP, agent=agent, session_service=sessions)


def excluded_actions(request_body: dict) -> list[str]:
    computer_use = request_body["tools"][0]["computerUse"]
    # The SDK's spelling varies by version.
    return computer_use.get("excludedPredefinedFunctions", computer_use.get("excluded_predefined_functions"))


def function_response(request_body: dict) -> dict:
    return next(p["functionResponse"] for c in request_body["contents"] for p in c["parts"] if "functionResponse" in p)


async def test_model_clicks_on_the_real_screen_and_sees_the_screenshot(gemini_server: GeminiServer, sessions):
    computer = RecordingComputer()
    runner = browser_runner(gemini_server, sessions, computer)
    gemini_server.reply_function_call("click_at", {"x": 500, "y": 250})
    gemini_server.reply_text("Clicked.")

    events = await run(runner, user_msg("click the middle"))

    assert computer.actions == [("click_at", 960, 270)]  # 1000x1000 mapped onto 1920x1080
    assert computer.initialized == 1
    first, second = gemini_server.requests
    # The model learns of the computer through Gemini's computer_use tool, not declarations,
    # and (as google-adk sends it) with no system instruction.
    assert first.body["tools"] == [{"computerUse": {"environment": "ENVIRONMENT_BROWSER"}}]
    assert "systemInstruction" not in first.body
    answer = function_response(second.body)
    assert answer["name"] == "click_at" and answer["response"] == {"url": "https://example.com/"}
    [image] = answer["parts"]
    inline = image.get("inlineData") or image["inline_data"]  # the SDK's spelling varies by version
    assert inline.get("mimeType", inline.get("mime_type")) == "image/png"
    assert base64.b64decode(inline["data"]) == PNG
    assert events[-1].text() == "Clicked."
    stored = await sessions.get_session(app_name=APP, user_id=USER, session_id=SESSION)
    # The screenshot survives the store: a later turn's history shows the model what it saw.
    [kept] = [p.function_response for e in stored.events for p in (e.content.parts if e.content else [])
              if p.function_response]
    assert kept.parts[0].inline_data.data == PNG


async def test_new_action_names_reach_the_old_methods(gemini_server: GeminiServer, sessions):
    computer = RecordingComputer()
    runner = browser_runner(gemini_server, sessions, computer, model="gemini-3-pro-preview")
    gemini_server.reply_function_call("hotkey", {"keys": ["control", "c"]})
    gemini_server.reply_function_call("wait_5_seconds", {})
    gemini_server.reply_text("Done.")

    await run(runner, user_msg("copy, then wait"))

    assert computer.actions == [("keys", "control", "c"), ("wait", 5)]
    # A 3.x model is told which optional actions this computer lacks.
    excluded = excluded_actions(gemini_server.requests[0].body)
    assert "double_click" in excluded and "key_down" in excluded


async def test_excluded_actions_are_not_offered_or_run(gemini_server: GeminiServer, sessions):
    computer = RecordingComputer()
    runner = browser_runner(gemini_server, sessions, computer, excluded_predefined_functions=["drag_and_drop"])
    gemini_server.reply_function_call("drag_and_drop", {"x": 1, "y": 1, "destination_x": 2, "destination_y": 2})
    gemini_server.reply_text("I cannot drag.")

    await run(runner, user_msg("drag it"))

    assert computer.actions == []
    assert excluded_actions(gemini_server.requests[0].body) == ["drag_and_drop"]
    assert "error" in function_response(gemini_server.requests[1].body)["response"]


async def test_navigate_refuses_private_hosts_unless_allowed(gemini_server: GeminiServer, sessions):
    computer = RecordingComputer()
    runner = browser_runner(gemini_server, sessions, computer)
    for url in ("http://169.254.169.254/latest/meta-data", "http://localhost:8080/", "file:///etc/passwd"):
        gemini_server.reply_function_call("navigate", {"url": url})
    gemini_server.reply_text("Refused.")

    await run(runner, user_msg("open the metadata server"))

    assert computer.actions == []
    for request in gemini_server.requests[1:]:
        assert function_response(request.body)["response"]["error"].startswith("navigate refused")

    allowed = RecordingComputer()
    gemini_server.reply_function_call("navigate", {"url": "http://127.0.0.1:8080/app"})
    gemini_server.reply_text("Opened.")
    await run(browser_runner(gemini_server, sessions, allowed, allow_private_network_access=True), user_msg("open"))
    assert allowed.actions == [("navigate", "http://127.0.0.1:8080/app")]


@pytest.mark.parametrize("approved", [True, False])
async def test_an_action_the_model_flags_waits_for_a_person(gemini_server: GeminiServer, sessions, approved):
    computer = RecordingComputer()
    runner = browser_runner(gemini_server, sessions, computer)
    flagged = {"x": 100, "y": 100,
               "safety_decision": {"decision": "require_confirmation", "explanation": "This buys something."}}
    gemini_server.reply_function_call("click_at", flagged)
    gemini_server.reply_text("Waiting for you.")

    events = await run(runner, user_msg("buy it"))

    assert computer.actions == []  # nothing runs before a person says so
    request = request_of(events)
    assert request.args["toolConfirmation"]["hint"] == "This buys something."

    gemini_server.reply_text("Bought." if approved else "Not bought.")
    await run(runner, confirm(request.id, approved))

    assert computer.actions == ([("click_at", 192, 108)] if approved else [])
    answer = function_response(gemini_server.requests[-1].body)["response"]
    if approved:
        assert answer["safety_acknowledgement"] == "true"
    else:
        assert answer == {"error": "This tool call is rejected."}


async def test_runner_close_closes_the_computer(gemini_server: GeminiServer, sessions):
    computer = RecordingComputer()
    runner = browser_runner(gemini_server, sessions, computer)
    gemini_server.reply_text("Nothing to do.")
    await run(runner, user_msg("hi"))
    await runner.close()
    assert computer.closed == 1
