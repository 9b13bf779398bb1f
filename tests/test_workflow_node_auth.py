"""auth_config on a workflow node, persisted: the node asks for a credential and waits; the
answer (to another Runner over the same store) runs it again with the credential, which the
stored log never holds; a malformed answer is refused with nothing written.
(tools/parity/apps/workflow_node_auth.py compares the run with google-adk itself.)"""

from __future__ import annotations

import json

import pytest
from google.genai import types

from domain.errors import InvalidAnswerError
from projections.workflow import fold_all
from runtime import Runner, session_service_from_url
from runtime.auth.auth_credential import AuthCredential, AuthCredentialTypes, OAuth2Auth
from runtime.auth.auth_tool import AuthConfig
from runtime.auth.credential_service import InMemoryCredentialService
from runtime.events import Event
from runtime.plugins import BasePlugin
from runtime.tools import FunctionTool, ToolContext
from runtime.workflow import START, Context, Workflow, WorkflowConfigurationError, node
from tests.openapi_server import ACCESS_TOKEN, AUTH_CODE, openapi_server  # noqa: F401 - a fixture

APP, USER = "bank", "u1"
SECRET = "sk-live-0042"

bank_key = AuthConfig(
    auth_scheme={"type": "apiKey", "in": "query", "name": "key"},
    raw_auth_credential=AuthCredential(auth_type=AuthCredentialTypes.API_KEY, api_key="unset"),
    credential_key="bank_key",
)


def workflow(ran: list[str]) -> Workflow:
    @node(auth_config=bank_key, rerun_on_resume=True)
    def balance(ctx: Context):
        ran.append("balance")
        return {"balance": 120, "key_ends": ctx.get_auth_response(bank_key).api_key[-2:]}

    def report(node_input: dict):
        return Event(message=f"balance {node_input['balance']} (key …{node_input['key_ends']})")

    return Workflow(name="banking", edges=[(START, balance, report)])


def answer(response: dict) -> types.Content:
    return types.Content(role="user", parts=[types.Part(function_response=types.FunctionResponse(
        id="wf_auth:banking@1/balance@1", name="adk_request_credential", response=response))])


async def run(runner: Runner, session_id: str, message: types.Content) -> list[Event]:
    return [e async for e in runner.run_async(user_id=USER, session_id=session_id, new_message=message)]


async def test_a_node_waits_for_its_credential_and_runs_with_it(store_url):
    sessions = session_service_from_url(store_url)
    session = await sessions.create_session(app_name=APP, user_id=USER)
    ran: list[str] = []
    runner = Runner(app_name=APP, node=workflow(ran), session_service=sessions, credential_service=InMemoryCredentialService())
    first = await run(runner, session.id, types.Content(role="user", parts=[types.Part(text="balance?")]))
    request = first[-1].get_function_calls()[0]
    assert (request.name, request.id) == ("adk_request_credential", "wf_auth:banking@1/balance@1")
    assert request.args["message"] == "Please provide your API key for key."
    assert "apiKey" not in request.args["authConfig"]["rawAuthCredential"]  # no secret in the request
    assert ran == []  # the function waits for the credential

    runner = Runner(app_name=APP, node=workflow(ran), session_service=sessions, credential_service=InMemoryCredentialService())
    second = await run(runner, session.id, answer({"result": SECRET}))
    assert ran == ["balance"]
    assert second[-1].content.parts[0].text == "balance 120 (key …42)"
    stored = await sessions.get_session(app_name=APP, user_id=USER, session_id=session.id)
    assert SECRET not in json.dumps([e.model_dump(mode="json") for e in stored.log_events()])
    assert fold_all(stored.log_events()).nodes["banking@1/balance@1"].status == "completed"
    await sessions.close()


async def test_an_answer_that_is_no_credential_is_refused_and_nothing_is_written(store_url):
    sessions = session_service_from_url(store_url)
    session = await sessions.create_session(app_name=APP, user_id=USER)
    ran: list[str] = []
    runner = Runner(app_name=APP, node=workflow(ran), session_service=sessions, credential_service=InMemoryCredentialService())
    await run(runner, session.id, types.Content(role="user", parts=[types.Part(text="balance?")]))
    before = len((await sessions.get_session(app_name=APP, user_id=USER, session_id=session.id)).log_events())
    with pytest.raises(InvalidAnswerError):
        await run(runner, session.id, answer({"result": True}))
    after = (await sessions.get_session(app_name=APP, user_id=USER, session_id=session.id)).log_events()
    assert len(after) == before and ran == []
    await sessions.close()


def test_auth_config_needs_rerun_on_resume():
    with pytest.raises(WorkflowConfigurationError, match="rerun_on_resume"):
        node(lambda: 1, name="fetch", auth_config=bank_key, rerun_on_resume=False)


def tool_workflow(ran: list[str]) -> Workflow:
    """A tool node whose tool asks for the bank key itself, then a tool node that fails."""

    def balance(account: str, tool_context: ToolContext) -> dict:
        ran.append("balance")
        credential = tool_context.get_auth_response(bank_key)
        if credential is None:
            tool_context.request_credential(bank_key)
            return {"pending": True}
        tool_context.state["balance"] = f"{account}: 120 (key …{credential.api_key[-2:]})"
        return {"account": account}

    def statements(account: str) -> dict:
        raise ConnectionError(f"statements of {account} are offline")

    def report(node_input: dict, balance: str):
        return Event(message=f"{balance}; {node_input}")

    return Workflow(name="banking", edges=[(START, FunctionTool(balance), FunctionTool(statements), report)])


async def test_a_tool_node_whose_tool_asks_for_a_credential_waits_and_runs_with_it(store_url):
    class Fallback(BasePlugin):
        async def on_tool_error_callback(self, *, tool, tool_args, tool_context, error):
            return {"statements": [], "note": str(error)}

    sessions = session_service_from_url(store_url)
    session = await sessions.create_session(app_name=APP, user_id=USER)
    ran: list[str] = []

    def runner() -> Runner:
        return Runner(app_name=APP, node=tool_workflow(ran), session_service=sessions, plugins=[Fallback(name="fallback")],
                      credential_service=InMemoryCredentialService())

    first = await run(runner(), session.id, types.Content(role="user", parts=[types.Part(text="main")]))
    request = first[-1].get_function_calls()[0]
    assert (request.name, request.id) == ("adk_request_credential", "wf_auth:banking@1/balance@1")
    assert request.args["authConfig"]["credentialKey"] == "bank_key" and "apiKey" not in request.args["authConfig"]["rawAuthCredential"]
    assert ran == ["balance"] and not [e for e in first if e.output is not None]  # no result: it waits

    second = await run(runner(), session.id, answer({"result": SECRET}))
    assert ran == ["balance", "balance"]
    assert second[-1].content.parts[0].text == (
        "main: 120 (key …42); {'statements': [], 'note': 'statements of main are offline'}"
    )
    stored = await sessions.get_session(app_name=APP, user_id=USER, session_id=session.id)
    assert SECRET not in json.dumps([e.model_dump(mode="json") for e in stored.log_events()])
    await sessions.close()


async def test_a_node_exchanges_the_oauth2_code_the_answer_brings_at_the_token_endpoint(store_url, openapi_server):
    """The client answers with the sign-in's redirect (its code); the node's credential is
    exchanged at the real token endpoint (a loopback server) before the node runs again, with its
    own client; the token reaches the node, never the log."""
    base = openapi_server.url
    profile = AuthConfig(
        auth_scheme={"type": "oauth2", "flows": {"authorizationCode": {
            "authorizationUrl": f"{base}/authorize", "tokenUrl": f"{base}/token", "scopes": {"me": "your profile"}}}},
        raw_auth_credential=AuthCredential(auth_type=AuthCredentialTypes.OAUTH2, oauth2=OAuth2Auth(
            client_id="chronicle-app", client_secret="client-SECRET", redirect_uri="https://app.example/callback")),
        credential_key="profile",
    )

    def flow(seen: list[str]) -> Workflow:
        @node(auth_config=profile, rerun_on_resume=True)
        def me(ctx: Context):
            seen.append(ctx.get_auth_response(profile).oauth2.access_token)
            return "signed in"

        return Workflow(name="account", edges=[(START, me)])

    sessions = session_service_from_url(store_url)
    session = await sessions.create_session(app_name=APP, user_id=USER)
    seen: list[str] = []
    credentials = InMemoryCredentialService()
    runner = Runner(app_name=APP, node=flow(seen), session_service=sessions, credential_service=credentials)
    first = await run(runner, session.id, types.Content(role="user", parts=[types.Part(text="who am I?")]))
    request = first[-1].get_function_calls()[0]
    assert request.args["message"] == "Please complete the authentication flow."
    signed_in = request.args["authConfig"]
    signed_in["exchangedAuthCredential"] = {"authType": "oauth2", "oauth2": {
        "authResponseUri": f"https://app.example/callback?code={AUTH_CODE}&state=s1"}}
    reply = types.Content(role="user", parts=[types.Part(function_response=types.FunctionResponse(
        id=request.id, name="adk_request_credential", response=signed_in))])
    await run(runner, session.id, reply)

    assert seen == [ACCESS_TOKEN]
    [token] = [r for r in openapi_server.requests if r["path"] == "/token"]
    assert "grant_type=authorization_code" in token["body"] and f"code={AUTH_CODE}" in token["body"]
    stored = await sessions.get_session(app_name=APP, user_id=USER, session_id=session.id)
    logged = json.dumps([e.model_dump(mode="json") for e in stored.log_events()])
    assert ACCESS_TOKEN not in logged and AUTH_CODE not in logged
    await sessions.close()
