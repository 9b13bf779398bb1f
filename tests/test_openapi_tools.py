"""OpenAPI tools through a real Runner against a real REST API on a loopback port: requests built
from the model's arguments, credentials attached (an API key; an OAuth2 token the client supplies,
refreshed at the real token endpoint) and never written to the log, errors the model can read."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from google.genai import types

from runtime import App, LlmAgent, ResumabilityConfig, Runner, ScriptedLlm, session_service_from_url
from runtime.auth import AuthConfig, AuthCredential, AuthScheme, OAuth2Auth, StoreCredentialService
from runtime.tools.authenticated_function_tool import AuthenticatedFunctionTool
from runtime.tools.openapi_tool import OpenAPIToolset, RestApiTool
from runtime.tools.openapi_tool.auth.auth_helpers import token_to_scheme_credential
from tests.openapi_server import ACCESS_TOKEN, API_KEY, REFRESH_TOKEN, REFRESHED_TOKEN, OpenApiServer, openapi_server  # noqa: F401

ROOT = Path(__file__).resolve().parent.parent
APP, USER, SESSION = "app", "ann", "s1"
SECRETS = (API_KEY, ACCESS_TOKEN, REFRESHED_TOKEN, REFRESH_TOKEN, "csecret")


def user(text: str) -> types.Content:
    return types.Content(role="user", parts=[types.Part(text=text)])


def answer(call: types.FunctionCall, credential: dict) -> types.Content:
    config = dict(call.args["authConfig"], exchangedAuthCredential=credential)
    part = types.Part(function_response=types.FunctionResponse(id=call.id, name=call.name, response=config))
    return types.Content(role="user", parts=[part])


async def run(runner: Runner, message: types.Content) -> list:
    return [e async for e in runner.run_async(user_id=USER, session_id=SESSION, new_message=message)]


def responses(events: list) -> list:
    return [r.response for e in events for r in e.get_function_responses()]


def credential_request(events: list) -> types.FunctionCall:
    return next(c for e in events for c in e.get_function_calls() if c.name == "adk_request_credential")


async def assert_no_secret_logged(sessions) -> None:
    session = await sessions.get_session(app_name=APP, user_id=USER, session_id=SESSION)
    logged = "".join(e.model_dump_json() for e in session.events) + json.dumps(session.state, default=str)
    assert not [s for s in SECRETS if s in logged]


def caller(tool: str, **args) -> ScriptedLlm:
    """A model that calls `tool` for each user message, then says what it answered."""

    def turn(request):
        last = request.contents[-1].parts[-1]
        if last.function_response is not None:
            return f"answered: {json.dumps(last.function_response.response)}"
        return ScriptedLlm.call(tool, **args)

    return ScriptedLlm([turn], cycle=True)


def pets_toolset(server: OpenApiServer, key: str = API_KEY, **kwargs) -> OpenAPIToolset:
    scheme, credential = token_to_scheme_credential("apikey", "header", "X-Api-Key", key)
    return OpenAPIToolset(spec_dict=server.spec(), auth_scheme=scheme, auth_credential=credential,
                          tool_filter=["get_pet", "add_pet"], allow_private_network_access=True, **kwargs)


async def test_an_agent_calls_a_rest_api_with_its_api_key(store_url, openapi_server):
    sessions = session_service_from_url(store_url)
    model = ScriptedLlm([ScriptedLlm.call("get_pet", pet_id=7, verbose=True),
                         ScriptedLlm.call("add_pet", name="Tom", tag="cat"), "Rex is a dog; Tom is added."])
    runner = Runner(agent=LlmAgent(name="vet", model=model, tools=[pets_toolset(openapi_server)]), app_name=APP,
                    session_service=sessions)
    await sessions.create_session(app_name=APP, user_id=USER, session_id=SESSION)
    events = await run(runner, user("tell me about pet 7, then add Tom"))

    get, post = openapi_server.requests
    assert (get["method"], get["path"], get["query"]) == ("GET", "/pets/7", {"verbose": "true"})
    assert get["headers"]["x-api-key"] == API_KEY
    assert (post["method"], post["path"], json.loads(post["body"])) == ("POST", "/pets", {"name": "Tom", "tag": "cat"})
    assert post["headers"]["content-type"] == "application/json"
    assert responses(events) == [{"id": 7, "name": "Rex", "kind": "dog"}, {"id": 8, "name": "Tom", "tag": "cat"}]
    # What the model was told: the operations' parameters as JSON schema, the path one required.
    declared = {d.name: d for t in model.requests[0].config.tools for d in t.function_declarations}
    assert list(declared) == ["get_pet", "add_pet"]
    assert declared["get_pet"].parameters_json_schema == {
        "properties": {"pet_id": {"type": "integer", "description": ""},
                       "verbose": {"type": "boolean", "description": "More detail."}},
        "required": ["pet_id"], "title": "getPet_Arguments", "type": "object"}
    assert declared["add_pet"].parameters_json_schema["required"] == ["name"]
    await assert_no_secret_logged(sessions)
    await runner.close()


async def test_failures_come_back_as_errors_the_model_can_read(openapi_server):
    toolset = OpenAPIToolset(spec_dict=openapi_server.spec(), allow_private_network_access=True)
    note = toolset.get_tool("read_note")
    assert await note.call(args={"name": "a b/c"}, tool_context=None) == {"text": "note a b/c"}
    assert openapi_server.requests[-1]["raw_path"] == "/notes/a%20b%2Fc"  # one path segment, encoded

    escaped = await note.call(args={"name": "../pets/1"}, tool_context=None)
    assert "must not contain current-directory or parent-directory segments" in escaped["error"]
    assert len(openapi_server.requests) == 1  # refused before sending

    wrong_key = pets_toolset(openapi_server, key="not-the-key").get_tool("get_pet")
    model = ScriptedLlm([ScriptedLlm.call("get_pet", pet_id=1), "No luck."])
    runner = Runner(agent=LlmAgent(name="vet", model=model, tools=[wrong_key]), app_name=APP,
                    session_service=session_service_from_url("memory://"))
    await runner.session_service.create_session(app_name=APP, user_id=USER, session_id=SESSION)
    [error] = responses(await run(runner, user("pet 1?")))
    assert error["error"].startswith("Tool get_pet execution failed.")
    assert error["error"].endswith('Status Code: 401, {"detail":"bad key"}')
    await runner.close()


async def test_loopback_and_private_hosts_are_refused_unless_allowed(openapi_server):
    default = OpenAPIToolset(spec_dict=openapi_server.spec()).get_tool("read_note")
    refused = await default.call(args={"name": "x"}, tool_context=None)
    assert "Blocked host: 127.0.0.1" in refused["error"]
    spec = openapi_server.spec()
    for url in ("http://localhost:1", "http://metadata.google.internal", "http://169.254.169.254", "http://10.0.0.1"):
        spec["servers"] = [{"url": url}]
        tool = OpenAPIToolset(spec_dict=spec).get_tool("read_note")
        assert "Blocked host" in (await tool.call(args={"name": "x"}, tool_context=None))["error"]
    assert openapi_server.requests == []


@pytest.mark.parametrize("resumable", [False, True])
async def test_an_oauth2_operation_asks_the_client_and_refreshes_the_token(store_url, openapi_server, resumable):
    sessions = session_service_from_url(store_url)
    credentials = StoreCredentialService(sessions.store)
    toolset = OpenAPIToolset(
        spec_dict=openapi_server.spec(), tool_filter=["get_profile"], allow_private_network_access=True,
        auth_credential=AuthCredential(auth_type="oauth2", oauth2=OAuth2Auth(client_id="cid", client_secret="csecret")))
    model = caller("get_profile")
    app = App(name=APP, root_agent=LlmAgent(name="me", model=model, tools=[toolset]),
              resumability_config=ResumabilityConfig(is_resumable=True) if resumable else None)
    runner = Runner(app=app, session_service=sessions, credential_service=credentials)
    await sessions.create_session(app_name=APP, user_id=USER, session_id=SESSION)

    asked = await run(runner, user("who am I?"))
    request = credential_request(asked)
    assert request.args["authConfig"]["authScheme"]["flows"]["authorizationCode"]["tokenUrl"].endswith("/token")
    assert request.args["authConfig"]["rawAuthCredential"]["oauth2"]["clientSecret"] == "**redacted**"
    assert openapi_server.requests == []

    # The user signed in; the token the client sends has already expired: it is refreshed first.
    expired = {"authType": "oauth2", "oauth2": {"clientId": "cid", "clientSecret": "csecret",
                                                "accessToken": ACCESS_TOKEN, "refreshToken": REFRESH_TOKEN,
                                                "expiresAt": int(time.time()) - 600}}
    answered = await run(runner, answer(request, expired))
    assert {"user": "ann"} in responses(answered)
    token, me = openapi_server.requests
    assert token["path"] == "/token" and f"refresh_token={REFRESH_TOKEN}" in token["body"]
    assert me["headers"]["authorization"] == f"Bearer {REFRESHED_TOKEN}"

    # A later turn finds the credential in the credential service: no new request to the user.
    later = await run(runner, user("and now?"))
    assert {"user": "ann"} in responses(later)
    assert not [c for e in later for c in e.get_function_calls() if c.name == "adk_request_credential"]
    await assert_no_secret_logged(sessions)
    await runner.close()


async def test_a_rejected_token_is_refreshed_then_the_user_asked_again(openapi_server):
    sessions = session_service_from_url("memory://")
    toolset = OpenAPIToolset(
        spec_dict=openapi_server.spec(), tool_filter=["get_profile"], allow_private_network_access=True,
        auth_credential=AuthCredential(auth_type="oauth2", oauth2=OAuth2Auth(client_id="cid", client_secret="csecret")))
    runner = Runner(agent=LlmAgent(name="me", model=caller("get_profile"), tools=[toolset]), app_name=APP,
                    session_service=sessions, credential_service=StoreCredentialService(sessions.store))
    await sessions.create_session(app_name=APP, user_id=USER, session_id=SESSION)
    signed_in = {"authType": "oauth2", "oauth2": {"clientId": "cid", "accessToken": ACCESS_TOKEN,
                                                  "refreshToken": REFRESH_TOKEN, "expiresIn": 3600}}
    assert {"user": "ann"} in responses(await run(runner, answer(credential_request(await run(runner, user("me?"))),
                                                                 signed_in)))

    openapi_server.access_token = "revoked-by-the-provider"  # the API refuses the token it still holds
    del openapi_server.requests[:]
    assert {"user": "ann"} in responses(await run(runner, user("me again?")))
    assert [(r["path"], r["headers"].get("authorization")) for r in openapi_server.requests] == [
        ("/me", f"Bearer {ACCESS_TOKEN}"), ("/token", None), ("/me", f"Bearer {REFRESHED_TOKEN}")]

    openapi_server.access_token, openapi_server.refresh_token = "revoked-again", "revoked-too"
    asked_again = await run(runner, user("and now?"))
    assert responses(asked_again)[-1] == {"pending": True, "message": "Needs your authorization to access your data."}
    assert credential_request(asked_again).args["authConfig"]["authScheme"]["type"] == "oauth2"
    await assert_no_secret_logged(sessions)
    await runner.close()


async def test_an_authenticated_function_tool_gets_the_credential_the_client_sent(store_url):
    sessions = session_service_from_url(store_url)
    config = AuthConfig(auth_scheme=AuthScheme.model_validate({"type": "apiKey", "in": "header", "name": "X-Key"}),
                        raw_auth_credential=AuthCredential(auth_type="apiKey"))
    seen = []

    def forecast(city: str, credential: AuthCredential) -> dict:
        """The forecast for a city."""
        seen.append(credential.api_key)
        return {"city": city, "sky": "clear"}

    tool = AuthenticatedFunctionTool(func=forecast, auth_config=config)
    model = caller("forecast", city="Oslo", credential="from-the-model")
    runner = Runner(agent=LlmAgent(name="w", model=model, tools=[tool]), app_name=APP, session_service=sessions,
                    credential_service=StoreCredentialService(sessions.store))
    await sessions.create_session(app_name=APP, user_id=USER, session_id=SESSION)
    assert "credential" not in tool._get_declaration().parameters_json_schema["properties"]

    asked = await run(runner, user("weather?"))
    assert {"result": "Pending User Authorization."} in responses(asked) and seen == []
    await run(runner, answer(credential_request(asked), {"authType": "apiKey", "apiKey": API_KEY}))
    await run(runner, user("and tomorrow?"))
    assert seen == [API_KEY, API_KEY]  # never the model's "credential" argument
    await assert_no_secret_logged(sessions)
    await runner.close()


def test_specs_load_from_yaml_and_bad_ones_are_refused(openapi_server):
    import yaml

    toolset = OpenAPIToolset(spec_str=yaml.safe_dump(openapi_server.spec(), sort_keys=False), spec_str_type="yaml")
    assert [t.name for t in toolset._tools] == ["get_pet", "add_pet", "read_note", "get_profile"]
    assert all(isinstance(t, RestApiTool) for t in toolset._tools)
    external = {"openapi": "3.0.0", "paths": {"/x": {"get": {"responses": {"200": {"$ref": "other.yaml#/r"}}}}}}
    with pytest.raises(ValueError, match="External references not supported"):
        OpenAPIToolset(spec_dict=external)
    with pytest.raises(ValueError, match="must be an object"):
        OpenAPIToolset(spec_str="[1, 2]")


def test_without_fastapi_the_import_names_the_extra():
    code = ("import sys; sys.modules['fastapi'] = None\n"
            "try:\n    import runtime.tools.openapi_tool\n"
            "except ImportError as e:\n    print(type(e).__name__, e)\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                         env={"PYTHONPATH": str(ROOT)}).stdout
    assert out.startswith("OpenApiExtraNotInstalledError") and "chronicle-runtime[openapi]" in out
