"""`chronicle pending` and `chronicle history` show what waits for a person, the answers and
the cancellations (run as an operator would, in a subprocess)."""

from __future__ import annotations

from runtime import FunctionTool, session_service_from_url
from tests.cli_helpers import cli, cli_json
from tests.hitl_helpers import APP, SESSION, USER, confirm, make_runner, request_of, run, text


def tool(paid: list) -> FunctionTool:
    def reimburse(amount: int) -> dict:
        """Pays an amount back."""
        paid.append(amount)
        return {"paid": amount}

    return FunctionTool(reimburse, require_confirmation=True)


async def test_pending_lists_what_waits_and_history_shows_requests_answers_cancellations(shared_store_url):
    sessions = session_service_from_url(shared_store_url)
    try:
        for session_id in (SESSION, "s2", "s3"):
            await sessions.create_session(app_name=APP, user_id=USER, session_id=session_id)
        runner = make_runner(sessions, [tool([])])
        first = request_of(await run(runner, text("pay me 50")))
        second_events = [e async for e in runner.run_async(user_id=USER, session_id="s2", new_message=text("pay"))]
        third_events = [e async for e in runner.run_async(user_id=USER, session_id="s3", new_message=text("pay"))]
        await runner.cancel_async(user_id=USER, session_id="s3", invocation_id=third_events[0].invocation_id,
                                  reason="duplicate claim")
    finally:
        await sessions.close()

    listed = cli_json("pending", store=shared_store_url)
    assert [(r["session_id"], r["call_id"]) for r in listed] == [(SESSION, first.id), ("s2", request_of(second_events).id)]
    row = listed[0]
    assert row["app_name"] == APP and row["user_id"] == USER and row["kind"] == "confirmation"
    assert row["agent"] == "clerk" and row["tool"] == "reimburse" and row["invocation_id"]
    assert "approve or reject" in row["asks"] and row["since"] > 0

    table = cli("pending", "--color", "never", store=shared_store_url).stdout
    assert "reimburse" in table and "confirmation" in table and first.id in table and "s3" not in table
    assert cli_json("pending", "--user", "nobody", store=shared_store_url) == []

    # answer one: it leaves the list, and the history shows the request, the answer, the cancellation
    sessions = session_service_from_url(shared_store_url)
    try:
        await run(make_runner(sessions, [tool([])]), confirm(first.id, True))
    finally:
        await sessions.close()
    assert [r["session_id"] for r in cli_json("pending", store=shared_store_url)] == ["s2"]
    history = cli("history", SESSION, "--color", "never", "--full", store=shared_store_url).stdout
    assert "⏸ asks for confirmation: reimburse(amount=50)" in history
    assert '✓ answers confirmation: {"confirmed": true}' in history
    assert '← reimburse {"paid": 50}' in history
    cancelled = cli("history", "s3", "--color", "never", "--full", store=shared_store_url).stdout
    assert "✗ CANCELLED (sealed: adk_request_confirmation)" in cancelled and "duplicate claim" in cancelled
