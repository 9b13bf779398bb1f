"""Credential requests: the client's secret goes to the credential service, never into the log."""

from __future__ import annotations

from typing import Any

import pytest

from domain.errors import InvalidAnswerError
from domain.session_log import session_log_id
from runtime import ToolContext
from runtime.auth import AuthConfig, AuthCredential, AuthScheme, StoreCredentialService, credential_service_from_url
from tests.hitl_helpers import APP, SESSION, USER, make_runner, reply, request_of, run, text, texts

SECRET = "sk-live-4f1d-SECRET-9c2e"
AUTH = AuthConfig(
    auth_scheme=AuthScheme.model_validate({"type": "apiKey", "in": "header", "name": "X-Api-Key"}),
    raw_auth_credential=AuthCredential(auth_type="apiKey"),
)


def weather_tool(used: list):
    def weather(city: str, ctx: ToolContext) -> dict:
        """The weather in a city (needs the user's API key)."""
        credential = ctx.get_auth_response(AUTH)
        if credential is None:
            ctx.request_credential(AUTH)
            return {"status": "waiting for an API key"}
        used.append(credential.api_key)
        return {"city": city, "sky": "clear"}

    return weather


def supplied(api_key: str) -> dict[str, Any]:
    config = AUTH.model_copy(deep=True)
    config.exchanged_auth_credential = AuthCredential(auth_type="apiKey", api_key=api_key)
    return config.model_dump(mode="json", by_alias=True, exclude_none=True)


async def raw_log(sessions) -> str:
    rows = sessions.store.recorder.select_rows(session_log_id(APP, USER, SESSION))
    return "\n".join(bytes(state).decode("utf-8", "replace") for _, _, state in rows)


@pytest.mark.parametrize("resumable", [False, True])
async def test_a_credential_round_trip_keeps_the_secret_out_of_the_log(sessions, resumable):
    used: list = []
    credentials = StoreCredentialService(sessions.store)
    runner = make_runner(sessions, [weather_tool(used)], tool="weather", args={"city": "Oslo"},
                         resumable=resumable, credential_service=credentials)
    events = await run(runner, text("weather in Oslo?"))
    request = request_of(events, "adk_request_credential")
    assert request.args["functionCallId"] == next(c.id for e in events for c in e.get_function_calls() if c.name == "weather")
    assert request.args["authConfig"]["credentialKey"] == AUTH.credential_key
    assert used == []

    answered = await run(runner, reply(request.id, "adk_request_credential", supplied(SECRET)))
    assert used == [SECRET]
    assert texts(answered) == ['result: {"city": "Oslo", "sky": "clear"}']

    session = await sessions.get_session(app_name=APP, user_id=USER, session_id=SESSION)
    assert SECRET not in "".join(e.model_dump_json() for e in session.events)
    assert SECRET not in str(session.state)
    assert SECRET not in await raw_log(sessions)
    answer = next(r for e in session.events if e.author == "user" for r in e.get_function_responses())
    assert answer.response["credentialKey"] == AUTH.credential_key and len(answer.response["sha256"]) == 64
    # the credential service has it, for this user only (it reads app and user from a context)
    class Who:
        app_name, user_id = APP, USER

    assert (await credentials.load_credential(AUTH, Who())).api_key == SECRET
    Who.user_id = "someone else"
    assert await credentials.load_credential(AUTH, Who()) is None


async def test_a_tool_cannot_put_a_secret_in_the_log_through_its_request(sessions):
    leaky = AUTH.model_copy(deep=True)
    leaky.raw_auth_credential = AuthCredential(auth_type="apiKey", api_key=SECRET)

    def fetch(ctx: ToolContext) -> dict:
        """Fetches."""
        ctx.request_credential(leaky)
        return {"status": "waiting"}

    runner = make_runner(sessions, [fetch], tool="fetch", args={}, credential_service=StoreCredentialService(sessions.store))
    await run(runner, text("go"))
    assert SECRET not in await raw_log(sessions)


async def test_credential_answers_are_checked_before_anything_is_written(sessions):
    runner = make_runner(sessions, [weather_tool([])], tool="weather", args={"city": "Oslo"},
                         credential_service=StoreCredentialService(sessions.store))
    request = request_of(await run(runner, text("weather?")), "adk_request_credential")
    before = await raw_log(sessions)
    with pytest.raises(InvalidAnswerError, match="exchangedAuthCredential"):
        await run(runner, reply(request.id, "adk_request_credential", AUTH.model_dump(mode="json", by_alias=True)))
    with pytest.raises(InvalidAnswerError):
        await run(runner, reply(request.id, "adk_request_credential", {"authScheme": 3}))
    assert await raw_log(sessions) == before


async def test_the_credential_service_on_a_store_url_is_shared(store_url):
    first, second = credential_service_from_url(store_url), None
    try:
        config = AuthConfig.model_validate(supplied(SECRET))

        class Who:
            app_name, user_id = APP, USER

        await first.save_credential(config, Who())
        second = first if store_url.startswith("memory") else credential_service_from_url(store_url)
        assert (await second.load_credential(AUTH, Who())).api_key == SECRET
        assert await second.delete_user_credentials(APP, USER) == 1
        assert await first.load_credential(AUTH, Who()) is None
    finally:
        await first.close()
        if second is not None and second is not first:
            await second.close()


async def test_purging_a_user_removes_their_credentials(sessions, store_url):
    from domain.errors import StoreError
    from runtime.operations.purge import purge

    credentials = StoreCredentialService(sessions.store)

    class Who:
        app_name, user_id = APP, USER

    await credentials.save_credential(AuthConfig.model_validate(supplied(SECRET)), Who())
    if store_url.startswith("memory"):  # purge removes database rows: SQLite and PostgreSQL only
        with pytest.raises(StoreError):
            purge(sessions.store, APP, user_id=USER)
        return
    result = await sessions.store.call(lambda: purge(sessions.store, APP, user_id=USER))
    assert result.counts["credentials"] == 1
    assert await credentials.load_credential(AUTH, Who()) is None
