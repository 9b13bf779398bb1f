"""McpToolset's toolset-level auth (`auth_scheme=`, `auth_credential=`) against a real MCP server
over streamable HTTP (tests/mcp_server.py, which records the credential headers of every message
it gets), compared with google-adk 2.13 running the same app (tests/mcp_auth_app.py), and what
Chronicle promises beyond it: the credential request is a pause in the log on every store, the
secret never enters the log, and each user's calls carry that user's credential."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import urllib.request

import pytest
from google.genai import types

from projections.pending import open_requests
from tests import mcp_auth_side
from tests.test_mcp_toolset import serve
from tools.parity.check import REPO

SIDE = "tests.mcp_auth_side"
API_KEY, TOKEN = "sk-live-9f2c7731", "tok-4b1d5520"


@pytest.fixture(scope="module")
def server_url():
    yield from serve("http")


CASES = ["api_key", "api_key_resumable", "bearer", "oauth2_client_credentials", "oauth2", "oauth2_expired",
         "oauth2_public"]


def on_chronicle(case: str, url: str, store: str) -> dict:
    """The case on Chronicle, in this process, through the JSON the side's process prints."""
    return json.loads(json.dumps(asyncio.run(mcp_auth_side.run(case, "chronicle", url, store)), sort_keys=True))


_adk_runs: dict[str, dict] = {}


def on_adk(adk_python: str, case: str, url: str) -> dict:
    """The case on google-adk 2.13: every case in one process, once (they do not depend on
    Chronicle's store)."""
    if not _adk_runs:
        env = {**os.environ, "PYTHONPATH": REPO}
        done = subprocess.run([adk_python, "-W", "ignore", "-m", SIDE, *CASES, "--side", "adk", "--url", url],
                              capture_output=True, text=True, cwd=REPO, env=env, timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
        _adk_runs.update(json.loads(done.stdout))
    return _adk_runs[case]


def calls(turn: dict) -> list[str]:
    return [part["call"] for event in turn["events"] for part in event.get("parts", []) if "call" in part]


@pytest.mark.parametrize("case", ["api_key", "api_key_resumable"])
def test_an_api_key_is_asked_for_then_carried_as_adk_carries_it(adk_python, server_url, store_url, case):
    adk = on_adk(adk_python, case, server_url)
    # What google-adk does: the first turn asks for the key before any tool is listed (the server
    # hears nothing and the model is not called); the answer resumes the turn, every message to
    # the server carries the key; the next turn finds it in the credential service.
    asking, answered, next_turn = adk["turns"]
    assert calls(asking) == ["adk_request_credential"] and asking["events"][0]["waits_for_client"]
    request = asking["events"][0]["parts"][0]["args"]
    assert request["functionCallId"] == "_adk_toolset_auth_McpToolset"
    assert request["authConfig"]["authScheme"] == {"type": "apiKey", "in": "header", "name": "X-API-Key"}
    assert asking["server_saw"] == []
    assert [m["method"] for m in answered["server_saw"]] == [
        "initialize", "notifications/initialized", "tools/list", "tools/call"]
    assert {m.get("x-api-key") for t in (answered, next_turn) for m in t["server_saw"]} == {API_KEY}
    assert [p["text"] for e in answered["events"] for p in e.get("parts", []) if "text" in p] == [
        "You are account …7731"]
    assert calls(next_turn) == ["whoami"] and len(adk["model_requests"]) == 4
    if case == "api_key_resumable":  # the turns end with the agent's checkpoint
        assert answered["events"][-1].get("end_of_agent") and next_turn["events"][-1].get("end_of_agent")

    assert on_chronicle(case, server_url, store_url) == adk


@pytest.mark.parametrize("case, token", [("bearer", TOKEN), ("oauth2_client_credentials", "tok-client")])
def test_a_credential_the_agent_holds_is_carried_without_asking_as_adk_does(adk_python, server_url, store_url,
                                                                             case, token):
    """A configured bearer token; an OAuth2 client that gets its token as itself (once: kept)."""
    adk = on_adk(adk_python, case, server_url)
    assert all("adk_request_credential" not in calls(turn) for turn in adk["turns"])
    heard = [m for t in adk["turns"] for m in t["server_saw"]]
    grants = [m for m in heard if m["method"].startswith("token/")]
    assert len(grants) == (case != "bearer")
    assert {m.get("authorization") for m in heard if m not in grants} == {f"Bearer {token}"}
    assert on_chronicle(case, server_url, store_url) == adk


@pytest.mark.parametrize("case", ["oauth2", "oauth2_expired", "oauth2_public"])
def test_an_oauth2_sign_in_is_asked_for_exchanged_and_refreshed_as_adk_does(adk_python, server_url, store_url, case):
    """A confidential client's sign-in; the same with a token that has expired already; a public
    client's, with PKCE (the code is good only with the verifier of the sign-in's challenge)."""
    adk = on_adk(adk_python, case, server_url)
    asking, signed_in, next_turn = adk["turns"]
    config = asking["events"][0]["parts"][0]["args"]["authConfig"]
    # The user is sent to sign in (a fresh state each time), and the client secret is not sent.
    sign_in = config["exchangedAuthCredential"]["oauth2"]["authUri"]
    assert sign_in.startswith(f"{server_url.rsplit('/', 1)[0]}/authorize?response_type=code&client_id=bank-app&")
    assert ("code_challenge=<random>&code_challenge_method=S256" in sign_in) == (case == "oauth2_public")
    assert "clientSecret" not in json.dumps(config)
    grants = ["token/authorization_code"] + (["token/refresh_token"] if case == "oauth2_expired" else [])
    assert [m["method"] for m in signed_in["server_saw"]][: len(grants)] == grants
    assert {m["authorization"] for m in signed_in["server_saw"][len(grants):] + next_turn["server_saw"]} == {
        "Bearer tok-ann-7731"}
    assert on_chronicle(case, server_url, store_url) == adk


# -- Chronicle's promises beyond google-adk's -----------------------------------------------------


def app_module():
    from tests.mcp_auth_side import load_app

    return load_app("chronicle")


def message(text: str) -> types.Content:
    return types.Content(role="user", parts=[types.Part(text=text)])


def credential_answer(events, api_key: str) -> types.Content:
    from tests.mcp_auth_side import answer

    return answer({"credential": {"authType": "apiKey", "apiKey": api_key}}, events, types)


def seen(url: str) -> list[dict]:
    from tests.mcp_auth_side import seen as recorded

    return recorded(url)


async def collect(runner, user: str, content: types.Content) -> list:
    return [e async for e in runner.run_async(user_id=user, session_id="s1", new_message=content)]


async def test_the_request_is_a_pause_in_the_log_and_the_key_never_enters_it(server_url, store_url):
    from runtime.auth import credential_service_from_url
    from runtime.runners import Runner
    from runtime.sessions.service import session_service_from_url

    agent = app_module()["agent"](server_url, "api_key")

    def reached():  # the store's services, reached anew
        return dict(session_service=session_service_from_url(store_url),
                    credential_service=credential_service_from_url(store_url))

    first_services = reached()
    # In memory each service instance is a store of its own: another runner shares the first's.
    second_services = first_services if store_url.startswith("memory") else reached()

    first = Runner(app_name="bank", agent=agent, **first_services)
    await first.session_service.create_session(app_name="bank", user_id="ann", session_id="s1")
    seen(server_url)
    asked = await collect(first, "ann", message("who am I?"))
    session = await first.session_service.get_session(app_name="bank", user_id="ann", session_id="s1")
    pending = list(open_requests(session.events).values())
    assert [(r.name, r.args["functionCallId"]) for r in pending] == [
        ("adk_request_credential", "_adk_toolset_auth_McpToolset")]

    # Another runner (another process, on a shared store) reads the pause from the log and answers it.
    second = Runner(app_name="bank", agent=agent, **second_services)
    events = await collect(second, "ann", credential_answer(asked, API_KEY))
    assert events[-1].content.parts[0].text == "You are account …7731"
    assert {m.get("x-api-key") for m in seen(server_url)} == {API_KEY}
    session = await second.session_service.get_session(app_name="bank", user_id="ann", session_id="s1")
    assert open_requests(session.events) == {}
    logged = json.dumps([e.model_dump(mode="json") for e in session.events])
    assert API_KEY not in logged and "credential_service" in logged  # a reference to it, never the key
    await second.close()
    await first.close()


async def test_each_user_is_heard_with_their_own_key(server_url, sqlite_url):
    """Sessions are pooled per credential: one user's calls never travel with another's key."""
    from runtime.auth import credential_service_from_url
    from runtime.runners import Runner
    from runtime.sessions.service import session_service_from_url

    agent = app_module()["agent"](server_url, "api_key")
    runner = Runner(app_name="bank", agent=agent, session_service=session_service_from_url(sqlite_url),
                    credential_service=credential_service_from_url(sqlite_url))
    keys = {"ann": "sk-ann-00001111", "bob": "sk-bob-00002222"}
    for user in keys:
        await runner.session_service.create_session(app_name="bank", user_id=user, session_id="s1")
    asked = {user: await collect(runner, user, message("who am I?")) for user in keys}
    seen(server_url)
    for user, key in keys.items():
        events = await collect(runner, user, credential_answer(asked[user], key))
        assert events[-1].content.parts[0].text == f"You are account …{key[-4:]}"
        assert {m.get("x-api-key") for m in seen(server_url)} == {key}
    for user, key in keys.items():  # again, both sessions open: each call on its own user's
        events = await collect(runner, user, message("and now?"))
        assert events[-1].content.parts[0].text == f"You are account …{key[-4:]}"
    await runner.close()


async def test_a_pkce_verifier_never_enters_the_log(server_url, sqlite_url):
    from runtime.auth import credential_service_from_url
    from runtime.runners import Runner
    from runtime.sessions.service import session_service_from_url
    from tests.mcp_auth_side import answer

    agent = app_module()["agent"](server_url, "oauth2_public")
    credentials = credential_service_from_url(sqlite_url)
    runner = Runner(app_name="bank", agent=agent, session_service=session_service_from_url(sqlite_url),
                    credential_service=credentials)
    await runner.session_service.create_session(app_name="bank", user_id="ann", session_id="s1")
    asked = await collect(runner, "ann", message("who am I?"))
    events = await collect(runner, "ann", answer({"signed_in": "ann-7731"}, asked, types))
    assert events[-1].content.parts[0].text == "You are account …7731"  # the server checked the verifier
    session = await runner.session_service.get_session(app_name="bank", user_id="ann", session_id="s1")
    logged = json.dumps([e.model_dump(mode="json", by_alias=True) for e in session.events])
    assert "code_challenge=" in logged and "codeVerifier" not in logged
    await runner.close()


def test_the_server_records_what_it_was_sent(server_url):
    """The recording the tests above rely on: a message's method and its credential headers."""
    seen(server_url)
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()
    request = urllib.request.Request(server_url, data=body, method="POST", headers={
        "X-API-Key": "k", "Content-Type": "application/json", "Accept": "application/json, text/event-stream"})
    try:
        urllib.request.urlopen(request, timeout=10).close()
    except urllib.error.HTTPError:
        pass  # no session: refused, but heard
    assert seen(server_url) == [{"method": "ping", "x-api-key": "k"}]
