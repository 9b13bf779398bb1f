"""The web viewer (`chronicle serve` at /ui) in a real Chromium: Debian's /usr/bin/chromium driven
by Playwright, against a real `chronicle serve` on a real SQLite file, seeded with a conversation
through the real google-genai client and the local fake Gemini server. Each action taken in the
page is checked through the HTTP API; each page is saved as a screenshot (to the pytest tmp dir,
and to $CHRONICLE_SCREENSHOTS when set, e.g. docs/screenshots).

CHRONICLE_REQUIRE_BROWSER=1 (CI sets it) makes a missing Chromium or Playwright a failure, not a skip."""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import uuid
from pathlib import Path
from typing import Any, Iterator

import pytest

from domain import session_log_id
from tests.gemini_server import GeminiServer
from tests.server_helpers import ANN, BOB, OPS, ROOT, Served, message

CHROMIUM = os.environ.get("CHRONICLE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
AGENTS_DIR = ROOT / "tests" / "viewer_agents"
SHOP = "/apps/shop/users/ann/sessions/"
TIMEOUT_MS = 20_000


def _unavailable(reason: str) -> None:
    if os.environ.get("CHRONICLE_REQUIRE_BROWSER") == "1":
        pytest.fail(f"The browser tests are required but cannot run: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("Playwright is not installed (pip install -e '.[dev]')")
    if not os.path.exists(CHROMIUM):
        _unavailable(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def gemini() -> Iterator[GeminiServer]:
    with GeminiServer() as server:
        yield server


@pytest.fixture(scope="module")
def db_path(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("viewer") / "chronicle.db"


@pytest.fixture(scope="module")
def served(db_path, gemini) -> Iterator[Served]:
    server = Served(f"sqlite:///{db_path}", agents_dir=AGENTS_DIR, env={"GOOGLE_GEMINI_BASE_URL": gemini.url})
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def api(served) -> Iterator[Any]:
    with served.client(ANN) as client:
        yield client


def turn(api: Any, session: str, text: str) -> list[dict[str, Any]]:
    response = api.post("/run", json={"appName": "shop", "userId": "ann", "sessionId": session, "newMessage": message(text)})
    assert response.status_code == 200, response.text
    return response.json()


@pytest.fixture(scope="module")
def shop(api, gemini) -> dict[str, Any]:
    """A conversation of three turns: two purchases, then a checkout waiting for confirmation."""
    session = f"shop-{uuid.uuid4().hex[:6]}"
    assert api.post("/apps/shop/users/ann/sessions", json={"sessionId": session, "state": {"channel": "web"}}).status_code == 200
    gemini.reply_function_call("add_to_cart", {"item": "mug", "quantity": 2})
    gemini.reply_text("Two mugs are in your cart.", prompt_tokens=40, candidates_tokens=9)
    first = turn(api, session, "Two mugs, please.")
    gemini.reply_function_call("add_to_cart", {"item": "teapot", "quantity": 1})
    gemini.reply_text("A teapot too.", prompt_tokens=70, candidates_tokens=6)
    second = turn(api, session, "And a blue teapot.")
    gemini.reply_function_call("checkout", {"total": 42})
    third = turn(api, session, "Check out, please.")
    # google-adk's order: the request, then the placeholder result; the turn ends waiting.
    assert third[-2]["content"]["parts"][0]["functionCall"]["name"] == "adk_request_confirmation"
    assert "functionResponse" in third[-1]["content"]["parts"][0]
    return {"id": session, "turns": [first[0]["invocationId"], second[0]["invocationId"], third[0]["invocationId"]],
            "after_first": first[1]["id"]}


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Iterator[Path]:
    """Where the screenshots go; copied to $CHRONICLE_SCREENSHOTS at the end when it is set."""
    folder = tmp_path_factory.mktemp("screenshots")
    yield folder
    target = os.environ.get("CHRONICLE_SCREENSHOTS")
    if target:
        target_path = Path(target) if os.path.isabs(target) else ROOT / target
        target_path.mkdir(parents=True, exist_ok=True)
        for png in folder.glob("*.png"):
            shutil.copy(png, target_path / png.name)


def open_page(browser: Any, served: Served, hash_: str, token: str = ANN) -> Any:
    """A page of the viewer with `token` already given (kept in the tab's sessionStorage)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(f"sessionStorage.setItem('chronicle-token', {token!r})")
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    watch_errors(page)
    page.goto(f"{served.url}/ui/#{hash_}")
    wait_ready(page)
    return page


SCRIPT_ERRORS: dict[int, list[str]] = {}  # by id(page): the page's uncaught script errors and CSP refusals


def watch_errors(page: Any) -> None:
    errors = SCRIPT_ERRORS[id(page)] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    # The page's Content-Security-Policy refusing something the viewer does is an error too.
    page.on("console", lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None)


def done(page: Any) -> None:
    """Closes the page: it must have run without a script error."""
    assert SCRIPT_ERRORS.pop(id(page)) == []
    page.context.close()


def wait_ready(page: Any) -> None:
    """Until the page shows the address in the address bar, fully drawn."""
    page.wait_for_function("() => (() => { const m = document.querySelector('main');"
                           " return m.dataset.ready === '1' && m.dataset.hash === location.hash; })()")


def search(page: Any, expected_in_hash: str) -> None:
    """Submits the sessions filter and waits for the results."""
    page.locator("#session-filter button").click()
    page.wait_for_function(f"() => location.hash.includes({expected_in_hash!r})")
    wait_ready(page)


def confirm(page: Any) -> None:
    """Presses the confirmation step's button."""
    page.locator("#confirm-dialog[open] #confirm-ok").click()


def shoot(page: Any, shots: Path, name: str) -> None:
    page.screenshot(path=str(shots / name), full_page=True)


# -- the pages -----------------------------------------------------------------------------------


def test_the_page_asks_for_a_token_and_lists_the_sessions(browser, served, shop, shots):
    context = browser.new_context(viewport={"width": 1280, "height": 700})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    watch_errors(page)
    page.goto(f"{served.url}/ui")
    page.wait_for_selector("#token-dialog[open]")  # the server has tokens: the page asks
    page.fill("#token-input", ANN)
    page.locator("#token-form button").click()
    wait_ready(page)
    assert page.locator(f"#sessions tr[data-session='{shop['id']}']").count() == 1
    assert "waiting" in page.locator(f"#sessions tr[data-session='{shop['id']}']").inner_text()
    page.fill("#session-filter input[name=q]", "teapot")
    search(page, "q=teapot")
    assert page.locator("#sessions tbody tr").count() == 1
    assert "teapot" in page.locator("#sessions tbody tr").inner_text()
    shoot(page, shots, "sessions-search.png")
    done(page)


def test_without_authentication_the_page_asks_for_nothing(browser, db_path, gemini, shop):
    """A loopback server without tokens: every caller is an operator, and the page just works."""
    open_server = Served(f"sqlite:///{db_path}", agents_dir=AGENTS_DIR, tokens=None,
                         env={"GOOGLE_GEMINI_BASE_URL": gemini.url})
    try:
        page = browser.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        watch_errors(page)
        page.goto(f"{open_server.url}/ui/#/sessions")
        wait_ready(page)
        assert page.locator("#token-dialog[open]").count() == 0
        assert page.locator(f"#sessions tr[data-session='{shop['id']}']").count() == 1
        done(page)
    finally:
        open_server.stop()


def test_timeline_shows_turns_tool_calls_state_and_artifacts(browser, served, shop, shots):
    page = open_page(browser, served, f"/session/shop/ann/{shop['id']}")
    cards = page.locator("section.invocation")
    assert cards.count() == 3
    first = page.locator(f"section[data-invocation='{shop['turns'][0]}']").inner_text()
    assert "call add_to_cart" in first and '"item": "mug"' in first and "Two mugs are in your cart." in first
    assert "user:last_item" in first and "cart.txt v0" in first and "64 tokens" in first
    assert "checkout" in page.locator("#pending").inner_text()
    shoot(page, shots, "timeline.png")
    done(page)


def test_time_cursor_reads_the_state_then_and_the_diff(browser, served, api, shop, shots):
    page = open_page(browser, served, f"/travel/shop/ann/{shop['id']}")
    index = page.locator(f"#events tr[data-event='{shop['after_first']}']").get_attribute("data-index")
    cursor = page.locator("#time-cursor")  # move the cursor with the keys, to the first tool's answer
    cursor.focus()
    page.keyboard.press("Home")
    for _ in range(int(index)):
        page.keyboard.press("ArrowRight")
    page.wait_for_selector(f"#events tr.selected[data-event='{shop['after_first']}']")
    page.wait_for_selector("#state-at[data-ready='1']")
    shown = page.locator("#session-state").inner_text()
    assert '"mug":2' in shown.replace(" ", "") and "teapot" not in shown
    assert "mug" in page.locator("#user-state").inner_text() and "2" in page.locator("#app-state").inner_text()
    then = api.get(SHOP + shop["id"] + "/state", params={"event": shop["after_first"]}).json()
    assert then["state"]["cart"] == {"mug": 2} and then["user_state"] == {"user:last_item": "mug"}
    # A second pick: what changed from there to the last event.
    page.locator("#events tbody tr").last.locator("button.compare").click()
    page.wait_for_selector("#diff-table")
    diff = page.locator("#diff-table").inner_text()
    assert "cart" in diff and "teapot" in diff and "user:last_item" in diff
    # Through the API: a key that did not exist yet is said to be absent (not a server error).
    start = api.get(SHOP + shop["id"] + "/history").json()["timeline"]["invocations"][0]["steps"][0]["event_id"]
    changes = api.get(SHOP + shop["id"] + "/diff", params={"from_event": start, "to_event": shop["after_first"]}).json()
    cart = next(c for c in changes["changes"] if c["key"] == "cart")
    assert cart["before_absent"] is True and cart["before"] is None and cart["after"] == {"mug": 2}
    shoot(page, shots, "time-travel.png")
    done(page)


def test_approving_a_pending_confirmation_resumes_the_run(browser, served, api, gemini, shop, shots):
    gemini.reply_text("Paid: 42.")
    page = open_page(browser, served, f"/session/shop/ann/{shop['id']}")
    page.locator("#pending button.primary").click()
    assert "Approve" in page.locator("#confirm-dialog[open]").inner_text()
    confirm(page)
    page.wait_for_function("() => !document.querySelector('#pending') && document.querySelector('main').dataset.ready === '1'")
    assert "Paid: 42." in page.locator("#timeline").inner_text()
    assert api.get(SHOP + shop["id"] + "/pending").json() == []
    events = api.get(SHOP + shop["id"]).json()["events"]
    results = [p["functionResponse"]["response"] for e in events for p in e["content"]["parts"] if "functionResponse" in p]
    assert {"charged": 42, "status": "paid"} in results
    done(page)


def test_session_search_shows_a_user_only_their_own_sessions(served, api, shop):
    mine = api.get("/chronicle/sessions", params={"app": "shop", "q": "TEAPOT"}).json()
    assert [s["session_id"] for s in mine] == [shop["id"]]
    assert api.get("/chronicle/sessions", params={"status": "nonsense"}).status_code == 400
    assert api.get("/chronicle/sessions", params={"since": "yesterday"}).status_code == 400
    assert api.get("/chronicle/sessions", params={"until": "2000-01-01"}).json() == []
    gone = f"gone-{uuid.uuid4().hex[:6]}"
    api.post("/apps/shop/users/ann/sessions", json={"sessionId": gone})
    assert api.delete(SHOP + gone).status_code == 200
    deleted = api.get("/chronicle/sessions", params={"status": "deleted"}).json()
    assert [(s["session_id"], s["status"]) for s in deleted] == [(gone, ["deleted"])]
    with served.client(BOB) as bob:
        assert bob.get("/chronicle/sessions").json() == []
        assert bob.get("/chronicle/sessions", params={"user": "ann"}).status_code == 403
        assert bob.get("/chronicle/purges").status_code == 403
    with served.client(OPS) as ops:
        assert shop["id"] in [s["session_id"] for s in ops.get("/chronicle/sessions").json()]
        assert ops.get("/chronicle/purges").json() == []


def test_the_answer_route_refuses_unknown_answered_and_foreign_requests(served, api, gemini):
    session = f"shop-{uuid.uuid4().hex[:6]}"
    api.post("/apps/shop/users/ann/sessions", json={"sessionId": session})
    gemini.reply_function_call("checkout", {"total": 7})
    turn(api, session, "Buy it.")
    [request] = api.get(SHOP + session + "/pending").json()
    path = SHOP + session + "/pending/"
    with served.client(BOB) as bob:
        assert bob.post(path + request["call_id"], json={"confirmed": True}).status_code == 403
    assert api.post(path + "no-such-request", json={"confirmed": True}).status_code == 404
    assert api.post(path + request["call_id"], json={}).status_code == 400  # approve or reject, say which
    gemini.reply_text("Nothing was charged.")
    rejected = api.post(path + request["call_id"], json={"confirmed": False})
    assert rejected.status_code == 200, rejected.text
    results = [p["functionResponse"]["response"] for e in rejected.json()["events"] for p in e["content"]["parts"]
               if "functionResponse" in p]
    assert results == [{"error": "This tool call is rejected."}]
    assert api.post(path + request["call_id"], json={"confirmed": True}).status_code == 409


def test_an_input_request_is_answered_from_the_timeline(browser, served, api, gemini):
    session = f"ask-{uuid.uuid4().hex[:6]}"
    api.post("/apps/shop/users/ann/sessions", json={"sessionId": session})
    gemini.reply_function_call("adk_request_input", {"message": "Which colour?"})
    turn(api, session, "A mug, please.")
    page = open_page(browser, served, f"/session/shop/ann/{session}")
    request = page.locator("#pending [data-request]")
    assert "Which colour?" in request.inner_text()
    gemini.reply_text("A blue mug it is.")
    request.locator("input").fill("blue")
    request.get_by_role("button", name="Send").click()
    confirm(page)
    page.wait_for_function("() => !document.querySelector('#pending') && document.querySelector('main').dataset.ready === '1'")
    assert "A blue mug it is." in page.locator("#timeline").inner_text()
    events = api.get(SHOP + session).json()["events"]
    [answer] = [p["functionResponse"] for e in events if e["author"] == "user" for p in e["content"]["parts"] if "functionResponse" in p]
    assert answer["name"] == "adk_request_input" and answer["response"] == {"result": "blue"}
    # What the model was told: the user's answer, as the request's result.
    told = gemini.requests[-1].body["contents"][-1]["parts"][0]["functionResponse"]
    assert told["name"] == "adk_request_input" and told["response"] == {"result": "blue"}
    done(page)


def test_fork_then_rewind_from_the_timeline(browser, served, api, shop, shots):
    page = open_page(browser, served, f"/session/shop/ann/{shop['id']}")
    first = page.locator(f"section[data-invocation='{shop['turns'][0]}']")
    first.get_by_role("button", name="Fork from here").click()
    fork_id = f"{shop['id']}-what-if"
    page.fill("#fork-id", fork_id)
    confirm(page)
    page.wait_for_function(f"() => location.hash.includes({fork_id!r})")
    wait_ready(page)  # the fork's own timeline
    assert shop["id"] in page.locator("#fork-links").inner_text()  # the fork links to its source
    forked = api.get(SHOP + fork_id).json()
    assert forked["state"]["cart"] == {"mug": 2} and "teapot" not in str(forked["events"])
    # The source links to the fork.
    page.goto(f"{served.url}/ui/#/session/shop/ann/{shop['id']}")
    wait_ready(page)
    assert fork_id in page.locator("#fork-links").inner_text()
    # Rewind to before the second turn: the teapot leaves the cart, and the turn stays, greyed.
    page.locator(f"section[data-invocation='{shop['turns'][1]}']").get_by_role("button", name="Rewind to before").click()
    assert "Rewind" in page.locator("#confirm-dialog[open]").inner_text()
    confirm(page)
    page.wait_for_selector(f"section.invocation.rewound[data-invocation='{shop['turns'][1]}']")
    assert page.locator(".step.marker").count() == 1
    now = api.get(SHOP + shop["id"]).json()
    assert now["state"]["cart"] == {"mug": 2}
    assert now["events"][-1]["actions"]["rewindBeforeInvocationId"] == shop["turns"][1]
    history = api.get(SHOP + shop["id"] + "/history").json()["timeline"]
    assert [i["rewound"] for i in history["invocations"][:3]] == [False, True, True]
    shoot(page, shots, "timeline-rewound.png")
    done(page)


def test_replay_from_the_timeline_compares_the_answers(browser, served, api, gemini):
    session = f"replay-{uuid.uuid4().hex[:6]}"
    api.post("/apps/shop/users/ann/sessions", json={"sessionId": session})
    gemini.reply_text("We open at nine.")
    [event] = turn(api, session, "When do you open?")
    page = open_page(browser, served, f"/session/shop/ann/{session}")
    gemini.reply_text("We open at ten now.")  # the model answers differently this time
    page.get_by_role("button", name="Replay from here").click()
    confirm(page)
    page.wait_for_selector("#replay-result")
    report = page.locator("#replay-result").inner_text()
    assert "answers differ" in report and "We open at nine." in report and "We open at ten now." in report
    replayed_in = page.locator("#replay-result .sub a").inner_text()
    # The replay ran in a fork; the source is untouched, and the fork links back to it.
    forked = api.get(SHOP + replayed_in + "/history").json()["timeline"]
    assert forked["forked_from"]["source_session_id"] == session
    assert [e["id"] for e in api.get(SHOP + session).json()["events"]][-1] == event["id"]
    done(page)


def test_artifacts_are_listed_previewed_and_downloadable(browser, served, shop, shots):
    page = open_page(browser, served, f"/artifacts/shop/ann/{shop['id']}")
    assert page.locator("[data-artifact='cart.txt'] tbody tr").count() >= 2
    page.locator("[data-artifact='cart.txt'] tr[data-version='1']").click()
    page.wait_for_selector("#artifact-preview[data-ready='1']")
    assert "teapot x1" in page.locator("#artifact-preview pre").inner_text()
    page.locator("[data-artifact='label.png'] tr[data-version='0']").click()
    page.wait_for_selector("#artifact-preview img")
    assert page.locator("#artifact-preview img").evaluate("img => img.complete && img.naturalWidth") == 4
    assert "image/png" in page.locator("[data-artifact='label.png']").inner_text()
    with page.expect_download() as download:
        page.locator("#artifact-preview button").click()
    assert Path(download.value.path()).read_bytes().startswith(b"\x89PNG")
    shoot(page, shots, "artifacts.png")
    done(page)


def test_analytics_charts(browser, served, shop, shots):
    page = open_page(browser, served, "/analytics/shop", token=OPS)
    for chart in ("chart-tokens-day", "chart-latency", "chart-tools-day", "chart-errors-day", "chart-agent-tokens",
                  "chart-tool-calls", "chart-user-tokens"):
        assert page.locator(f"#{chart} svg rect").count() > 0, chart
    assert "add_to_cart" in page.locator("#chart-tool-calls").inner_text()
    for chart in ("chart-tokens-day", "chart-tools-day", "chart-errors-day"):  # each axis label once
        axis = page.locator(f"#{chart} svg text[text-anchor=end]").all_text_contents()
        assert len(axis) == len(set(axis)), (chart, axis)
    summary = page.locator("#analytics .sub").inner_text()
    assert not re.search(r"(?<![\d,])1 (session|invocation|model call|tool call|token|rewind|fork)s\b", summary), summary
    shoot(page, shots, "analytics.png")
    done(page)
    with served.client(BOB) as bob:
        assert bob.get("/apps/shop/analytics/summary").status_code == 403


def test_an_interrupted_turn_is_marked_in_the_timeline_and_counted(browser, served, api, gemini, db_path, shop, shots):
    """A turn whose process died mid-tool (its call written, its result never) is written straight
    into the SQLite file, as the killed process left it; the next turn, through the server, records
    the interruption. The timeline marks the turn with its open call; analytics counts it."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    from google.genai import types

    from domain import Event
    from runtime import session_service_from_url

    session = f"crash-{uuid.uuid4().hex[:6]}"
    assert api.post("/apps/shop/users/ann/sessions", json={"sessionId": session}).status_code == 200
    call = types.Part(function_call=types.FunctionCall(id="call-lost", name="add_to_cart", args={"item": "vase", "quantity": 1}))

    async def killed_mid_tool() -> None:
        sessions = session_service_from_url(f"sqlite:///{db_path}")
        stored = await sessions.get_session(app_name="shop", user_id="ann", session_id=session)
        for event in (Event(author="user", invocation_id="e-crashed", content=types.Content(role="user", parts=[types.Part(text="A vase.")])),
                      Event(author="clerk", invocation_id="e-crashed", content=types.Content(role="model", parts=[call]))):
            await sessions.append_event(stored, event)
        await sessions.close()

    with ThreadPoolExecutor(1) as other:  # Playwright's sync API holds this thread's event loop
        other.submit(asyncio.run, killed_mid_tool()).result()
    gemini.reply_text("Sorry, where were we? Your cart is as it was.")
    turn(api, session, "Hello? Did the vase go in?")
    [crashed, after] = api.get(SHOP + session + "/history").json()["timeline"]["invocations"]
    assert (crashed["interrupted"], crashed["interrupted_recorded"], crashed["open_calls"]) == (True, True, ["call-lost"])
    assert after["interrupted"] is False
    # A turn paused for a person (the shop's checkout waits for a confirmation) is not interrupted.
    assert not any(i["interrupted"] for i in api.get(SHOP + shop["id"] + "/history").json()["timeline"]["invocations"])
    page = open_page(browser, served, f"/session/shop/ann/{session}")
    marked = page.locator("section.invocation.interrupted")
    assert marked.count() == 1 and marked.get_attribute("data-invocation") == "e-crashed"
    assert "interrupted · recorded" in marked.locator(".inv-head").inner_text()
    note = marked.locator(".interrupted-note")
    assert "1 tool call without a result" in note.inner_text() and "add_to_cart · call-lost" in note.inner_text()
    assert page.locator("section.invocation:not(.interrupted)").count() == 1
    shoot(page, shots, "interrupted.png")
    done(page)
    page = open_page(browser, served, "/analytics/shop", token=OPS)
    assert re.search(r"\b1 interrupted invocation\b", page.locator("#analytics .sub").inner_text())
    shoot(page, shots, "analytics.png")  # taken again, later than test_analytics_charts: with the count
    done(page)


def test_a_tampered_chain_link_is_shown_where_it_is(browser, served, api, gemini, db_path, shots):
    session = f"ledger-{uuid.uuid4().hex[:6]}"
    api.post("/apps/shop/users/ann/sessions", json={"sessionId": session})
    gemini.reply_text("Noted: refund 10.")
    turn(api, session, "Refund 10 to my card.")
    log_id = session_log_id("shop", "ann", session)
    with sqlite3.connect(db_path) as db:  # someone edits the stored message behind Chronicle's back
        changed = db.execute(
            "UPDATE chronicle_events SET state = CAST(REPLACE(CAST(state AS TEXT), 'Refund 10', 'Refund 99') AS BLOB)"
            " WHERE originator_id = ? AND originator_version = 2", (log_id.hex,)).rowcount
    assert changed == 1
    assert api.get(SHOP + session + "/verify").json()["broken"]["version"] == 2
    page = open_page(browser, served, "/audit", token=OPS)
    row = page.locator(f"#chains tr[data-session='{session}']")
    assert row.get_attribute("data-chain") == "broken"
    text = row.inner_text()
    assert "at version 2" in text and "edited" in text and "found" in text and "expected" in text
    assert page.locator("#chains tr[data-chain='broken']").count() == 1  # the other sessions hold
    assert "No purge" in page.locator("#purges").inner_text()
    shoot(page, shots, "audit.png")
    # The session's own timeline marks the edited event.
    page.goto(f"{served.url}/ui/#/session/shop/ann/{session}")
    wait_ready(page)
    assert page.locator(".step.broken").get_attribute("data-version") == "2"
    warning = page.locator(".step.broken .chain-warning")  # a warning, not a retraction: never struck through
    assert "found" in warning.inner_text() and "expected" in warning.inner_text()
    assert "line-through" not in warning.evaluate("el => getComputedStyle(el).textDecorationLine")
    broken = api.get(SHOP + session + "/verify").json()["broken"]
    assert broken["found"] and broken["expected"] and broken["found"] != broken["expected"]
    assert broken["found"][:12] in warning.inner_text()
    done(page)
    # A user's token checks that user's sessions, one by one; the purge record is an operator's.
    page = open_page(browser, served, "/audit", token=ANN)
    assert page.locator(f"#chains tr[data-session='{session}']").get_attribute("data-chain") == "broken"
    assert "operator" in page.locator("#audit").inner_text()
    done(page)


def test_the_sessions_page_shows_each_status(browser, served, api, gemini, shots):
    session = f"status-{uuid.uuid4().hex[:6]}"
    api.post("/apps/shop/users/ann/sessions", json={"sessionId": session})
    gemini.reply_text("Hello.")
    gemini.reply_text("Goodbye.")
    turn(api, session, "Hi")
    [second] = turn(api, session, "Bye")
    assert api.post(SHOP + session + "/fork", json={"newSessionId": session + "-b"}).status_code == 200
    assert api.post(SHOP + session + "/rewind", json={"invocationId": second["invocationId"]}).status_code == 200
    page = open_page(browser, served, "/sessions?app=shop")
    row = page.locator(f"#sessions tr[data-session='{session}']").inner_text()
    assert "rewound" in row and "forked into" in row
    assert "forked" in page.locator(f"#sessions tr[data-session='{session}-b']").inner_text()
    page.select_option("#session-filter select[name=status]", "rewound")
    search(page, "status=rewound")
    assert session in page.locator("#sessions tbody").inner_text()
    assert all("rewound" in text for text in page.locator("#sessions tbody tr").all_inner_texts())
    page.goto(f"{served.url}/ui/#/sessions")
    wait_ready(page)
    shoot(page, shots, "sessions.png")
    done(page)


def test_a_turn_is_drawn_as_a_waterfall_when_the_server_has_traces(browser, served, shop):
    """The traces route (OpenTelemetry spans) comes from another part of Chronicle; here the page is
    fed the route's documented shape, and without it (a 404) the panel stays hidden."""
    page = open_page(browser, served, f"/session/shop/ann/{shop['id']}")
    if page.locator("#traces").count() == 0:
        start = 1_700_000_000_000_000_000
        spans = [
            {"name": "invoke_agent clerk", "span_id": "a", "parent_span_id": None, "start_time_unix_nano": start,
             "end_time_unix_nano": start + 900_000_000, "attributes": {"gen_ai.agent.name": "clerk"}},
            {"name": "chat gemini-2.5-flash", "span_id": "b", "parent_span_id": "a", "start_time_unix_nano": start + 10_000_000,
             "end_time_unix_nano": start + 400_000_000, "attributes": {"gen_ai.usage.input_tokens": 40}},
            {"name": "execute_tool add_to_cart", "span_id": "c", "parent_span_id": "a", "start_time_unix_nano": start + 420_000_000,
             "end_time_unix_nano": start + 600_000_000, "attributes": {"gen_ai.tool.name": "add_to_cart"}},
        ]
        page.route("**/traces", lambda route: route.fulfill(json={"spans": spans}))
        page.reload()
        wait_ready(page)
    page.select_option("#trace-turn", "0")  # the first turn: a model call, then the tool
    assert page.locator("#traces svg rect").count() >= 3
    assert "execute_tool add_to_cart" in page.locator("#traces svg").text_content()
    done(page)


# -- a store whose apps are not served, the chat panel, the workflow graph -------------------------


def test_a_server_without_agents_opens_every_stored_session_read_only(browser, db_path, api, gemini, shop, shots):
    """`chronicle serve --store URL` with no AGENTS_DIR: the sessions of apps it does not serve open
    (timeline, time travel, artifacts, audit), rewind and fork work, and what needs the agent
    (replay, answering a request, chat) is greyed out with the reason."""
    session = f"retired-{uuid.uuid4().hex[:6]}"
    api.post("/apps/shop/users/ann/sessions", json={"sessionId": session})
    gemini.reply_function_call("checkout", {"total": 5})
    turn(api, session, "Buy the spoon.")
    bare = Served(f"sqlite:///{db_path}", agents_dir=None)
    try:
        with bare.client(ANN) as client:
            assert client.get("/list-apps").json() == []
            assert client.get(SHOP + session + "/history").status_code == 200
            assert client.get(SHOP + session + "/artifacts").status_code == 200
            assert client.get("/apps/nowhere/users/ann/sessions").status_code == 404
            refused = client.post("/run", json={"appName": "shop", "userId": "ann", "sessionId": session,
                                                "newMessage": message("more")})
            assert refused.status_code == 404 and "serves no app" in refused.json()["detail"]
        page = open_page(browser, bare, f"/session/shop/ann/{session}")
        assert "not served" in page.locator("#not-served").inner_text()
        assert "checkout" in page.locator("#pending").inner_text()
        for name in ("Approve", "Reject"):
            button = page.locator("#pending").get_by_role("button", name=name)
            assert button.is_disabled() and "not served" in button.get_attribute("title")
        replay = page.get_by_role("button", name="Replay from here").first
        assert replay.is_disabled() and "AGENTS_DIR" in replay.get_attribute("title")
        assert page.get_by_role("button", name="Fork from here").first.is_enabled()
        shoot(page, shots, "not-served.png")
        # A fork needs no agent: it is a copy of the log.
        page.get_by_role("button", name="Fork from here").first.click()
        page.fill("#fork-id", session + "-copy")
        confirm(page)
        page.wait_for_function(f"() => location.hash.includes({session + '-copy'!r})")
        wait_ready(page)
        assert session in page.locator("#fork-links").inner_text()
        # Time travel and the chat page open too; the chat cannot send.
        page.goto(f"{bare.url}/ui/#/travel/shop/ann/{session}")
        wait_ready(page)
        assert page.locator("#events tbody tr").count() >= 2
        page.goto(f"{bare.url}/ui/#/chat/shop/ann/{session}")
        wait_ready(page)
        assert page.locator("#chat-send").is_disabled() and page.locator("#not-served").count() == 1
        assert "Buy the spoon." in page.locator("#chat-log").inner_text()
        done(page)
    finally:
        bare.stop()
    assert api.get(SHOP + session + "-copy").status_code == 200


def test_the_chat_panel_streams_a_turn_and_approves_a_confirmation(browser, served, api, gemini, shots):
    page = open_page(browser, served, "/chat")
    page.select_option("#chat-start select[name=app]", "shop")
    page.fill("#chat-start input[name=user]", "ann")
    page.locator("#chat-start button").click()
    page.wait_for_function("() => location.hash.startsWith('#/chat/shop/ann/')")
    wait_ready(page)
    session = page.evaluate("decodeURIComponent(location.hash.split('/')[4])")
    # Every bubble the log gains while the turn's stream is open is counted: events are drawn as they come.
    page.evaluate("""() => { const log = document.getElementById('chat-log'); window.drawnWhileStreaming = 0;
        new MutationObserver((changes) => { if (log.dataset.streaming === '1') window.drawnWhileStreaming +=
        changes.reduce((n, c) => n + c.addedNodes.length, 0); }).observe(log, { childList: true }); }""")
    gemini.reply_function_call("add_to_cart", {"item": "bowl", "quantity": 1})
    gemini.reply_text("A bowl is in your cart.")
    page.fill("#chat-input", "A bowl, please.")
    page.locator("#chat-send").click()
    page.wait_for_function("() => document.getElementById('chat-log').dataset.turns === '1'")
    log = page.locator("#chat-log").inner_text()
    assert "A bowl, please." in log and "call add_to_cart" in log and "result of add_to_cart" in log
    assert "A bowl is in your cart." in log
    assert page.evaluate("window.drawnWhileStreaming") >= 3  # the call, its result, the answer
    # A tool that needs confirmation: approved from the chat, and the resumed run streams in.
    gemini.reply_function_call("checkout", {"total": 9})
    page.fill("#chat-input", "Check out.")
    page.locator("#chat-send").click()
    page.wait_for_function("() => document.getElementById('chat-log').dataset.turns === '2'")
    request = page.locator("#chat-log [data-request]")
    assert "checkout" in request.inner_text() and '"total": 9' in request.inner_text()
    shoot(page, shots, "chat.png")
    gemini.reply_text("Paid: 9.")
    request.get_by_role("button", name="Approve").click()
    page.wait_for_function("() => document.getElementById('chat-log').dataset.turns === '3'")
    assert "Paid: 9." in page.locator("#chat-log").inner_text()
    assert "approved" in request.inner_text()
    assert api.get(SHOP + session + "/pending").json() == []
    events = api.get(SHOP + session).json()["events"]
    results = [p["functionResponse"]["response"] for e in events for p in e["content"]["parts"] if "functionResponse" in p]
    assert {"charged": 9, "status": "paid"} in results and {"confirmed": True} in results
    shoot(page, shots, "chat-approved.png")
    done(page)


def test_the_workflow_page_draws_the_graph_and_the_path_taken(browser, served, api, shots):
    session = f"flow-{uuid.uuid4().hex[:6]}"
    assert api.post("/apps/flow/users/ann/sessions", json={"sessionId": session}).status_code == 200
    ran = api.post("/run", json={"appName": "flow", "userId": "ann", "sessionId": session,
                                 "newMessage": message("Please file this long report.")})
    assert ran.status_code == 200, ran.text
    graph = api.get(f"/chronicle/apps/flow/users/ann/sessions/{session}/workflow").json()
    assert graph["whole_graph"] is True
    assert {n["id"]: n["taken"] for n in graph["nodes"]} == {
        "START": True, "classify": True, "summarise": True, "reply": False, "file": True}
    assert {(e["from"], e["to"], e["label"], e["taken"]) for e in graph["edges"]} == {
        ("START", "classify", "", True), ("classify", "summarise", "long", True),
        ("classify", "reply", "short", False), ("summarise", "file", "", True)}
    assert api.get(f"/chronicle/apps/flow/users/ann/sessions/{session}/workflow",
                   params={"invocation": "nope"}).status_code == 400
    page = open_page(browser, served, f"/session/flow/ann/{session}")
    page.get_by_role("link", name="Workflow graph").click()
    wait_ready(page)
    svg = page.locator("#workflow svg.graph")
    for name in ("classify", "summarise", "file"):
        assert svg.locator(f"g.node.taken.node-completed[data-node='{name}']").count() == 1, name
    assert svg.locator("g.node.idle[data-node='reply']").count() == 1
    assert "not run" in svg.locator("g[data-node='reply']").text_content()
    assert svg.locator("path.edge.taken").count() == 3 and svg.locator("path.edge.idle").count() == 1
    assert "long" in svg.text_content() and "short" in svg.text_content()
    assert page.locator("#node-runs tbody tr").count() == 3
    shoot(page, shots, "workflow.png")
    done(page)


def test_the_viewer_sends_its_security_headers(served):
    with served.client(None) as client:
        for path in ("/ui/", "/ui/js/main.js", "/ui/viewer.css"):
            headers = client.get(path).headers
            policy = headers["content-security-policy"]
            assert "script-src 'self'" in policy and "frame-ancestors 'none'" in policy and "unsafe" not in policy
            assert "http" not in policy  # no remote origin
            assert headers["x-content-type-options"] == "nosniff" and headers["referrer-policy"] == "no-referrer"


def test_two_eval_runs_side_by_side(browser, served, db_path, tmp_path, shots):
    """`chronicle eval --store` records each run; the viewer pairs two runs' cases and marks the changed turns."""
    import asyncio
    import json
    from concurrent.futures import ThreadPoolExecutor

    from runtime.stores import open_store
    from tests.cli_helpers import cli
    from tests.test_eval_from_log import AGENT_DIR, CHANGED, record

    store_url = f"sqlite:///{db_path}"
    store = open_store(store_url)
    try:  # in a thread of its own: Playwright's loop runs in this one
        with ThreadPoolExecutor(1) as thread:
            thread.submit(asyncio.run, record(store)).result()
    finally:
        store.close()
    evalset = str(tmp_path / "weather.evalset.json")
    cli("eval", "create", "--app", "weather_eval", "--out", evalset, store=store_url, process=True)
    before = json.loads(cli("eval", AGENT_DIR, evalset, "--json", store=store_url, process=True).stdout)["run_id"]
    after = json.loads(cli("eval", AGENT_DIR, evalset, "--json", store=store_url, expect=1, process=True,
                           env={"EVAL_AGENT_VARIANT": "changed"}).stdout)["run_id"]
    with served.client(OPS) as ops:
        runs = ops.get("/apps/weather_eval/eval/runs").json()
        assert [r["run_id"] for r in runs[:2]] == [after, before] and runs[0]["cases"] == 3
        assert ops.get("/apps/weather_eval/eval/compare", params={"a": before}).status_code == 400
        assert ops.get("/apps/weather_eval/eval/compare", params={"a": "eval-nope", "b": after}).status_code == 400
        assert ops.get("/apps/nope/eval/runs").status_code == 404
    with served.client(ANN) as ann:  # a run's sessions belong to its cases' users: operators only
        assert ann.get("/apps/weather_eval/eval/runs").status_code == 403
    page = open_page(browser, served, f"/eval/weather_eval?a={before}&b={after}", token=OPS)
    changed = {(c.get_attribute("data-case"), int(r.get_attribute("data-turn"))): r.get_attribute("data-changed")
               for c in page.locator("section.eval-case").all() for r in c.locator("tbody tr").all()}
    names = {"0-0": "paris_then_rome", "0-1": "tokyo", "0-2": "bangkok_then_chat"}
    found = {(names[case], turn): [w for w in what.split() if w != "tokens"] for (case, turn), what in changed.items()}
    assert {k: v for k, v in found.items() if v} == CHANGED
    rome = page.locator("section.eval-case[data-case='0-0'] tbody tr[data-turn='2']")
    assert "unit" in rome.locator("td").nth(3).text_content() and "unit" not in rome.locator("td").nth(2).text_content()
    assert page.locator("#eval-run-a").input_value() == before
    shoot(page, shots, "eval-compare.png")
    page.locator("section.eval-case[data-case='0-1'] a").first.click()  # case A's session opens in the timeline
    wait_ready(page)
    assert page.evaluate("location.hash").startswith(f"#/session/weather_eval/ann/{before}-0-1")
    done(page)


def test_long_lists_come_in_pages_the_viewer_asks_for(browser, served, api, shop):
    """The sessions page and a session's history are read a page at a time (a cursor, a window of
    the log); the viewer asks for the next page, and joins an invocation split across two."""
    page = open_page(browser, served, "/sessions?limit=1")
    assert page.locator("#sessions tbody tr").count() == 1
    page.locator("#more-sessions").click()
    page.wait_for_function("() => document.querySelectorAll('#sessions tbody tr').length === 2")
    done(page)

    whole = api.get(SHOP + shop["id"] + "/history", params={"limit": 5000}).json()
    assert whole["window"]["earlier"] is None
    page = open_page(browser, served, f"/session/shop/ann/{shop['id']}?limit=3")
    assert page.locator("#earlier").count() == 1
    for _ in range(whole["window"]["last"]):
        if page.locator("#earlier").count() == 0:
            break
        page.evaluate("() => { window.shown = document.querySelector('#invocations').innerHTML.length; }")
        page.locator("#earlier").click()
        page.wait_for_function("() => document.querySelector('#invocations').innerHTML.length !== window.shown")
    shown = page.locator("section.invocation").evaluate_all("(cards) => cards.map((c) => c.dataset.invocation)")
    assert shown == [inv["invocation_id"] for inv in whole["timeline"]["invocations"]]
    done(page)
