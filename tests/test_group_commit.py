"""Group commit: appends to different sessions arriving together share transactions, and
a member that fails (here, an event id already stored) gets its own outcome without
sinking the others."""

from __future__ import annotations

import threading

from domain import Event, StaleSessionError
from runtime.sessions import session_service_from_url


def _text(text: str, event_id: str = "") -> dict:
    return Event(id=event_id, author="user", invocation_id="e-1", content={"role": "user", "parts": [{"text": text}]}).to_json_dict()


async def test_writers_arriving_together_each_get_their_own_outcome(shared_store_url):
    service = session_service_from_url(shared_store_url)
    sessions = [await service.create_session(app_name="app", user_id=f"u{i}") for i in range(8)]
    repeated = await service.create_session(app_name="app", user_id="again")
    await service.append_event(repeated, Event(id="once", author="user", content={"parts": [{"text": "once"}]}))
    stale = sessions[0].model_copy(deep=True)
    stale._version = 0  # behind the stored session
    commits: list[int] = []
    record = service.store.application.record

    def counting_record(events, logs, **kwargs):
        commits.append(len(events))
        return record(events, logs, **kwargs)

    service.store.application.record = counting_record
    rounds = 5
    for r in range(rounds):
        start = threading.Barrier(len(sessions) + 2)
        outcomes: dict[int, object] = {}

        def write(i: int, session, payload: dict) -> None:
            start.wait()
            try:
                outcomes[i] = service._append(session, payload)
            except Exception as error:  # noqa: BLE001 - the outcome under test
                outcomes[i] = error

        threads = [threading.Thread(target=write, args=(i, s, _text(f"{r}-{i}"))) for i, s in enumerate(sessions)]
        threads.append(threading.Thread(target=write, args=(-1, stale, _text("stale"))))
        threads.append(threading.Thread(target=write, args=(-2, repeated, _text("again", "once"))))
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert isinstance(outcomes.pop(-1), StaleSessionError)
        _, duplicate = outcomes.pop(-2)  # the stored event comes back; nothing new is stored
        assert duplicate.id == "once" and duplicate.text() == "once"
        for i, outcome in outcomes.items():
            assert outcome == (r + 2, None), (i, outcome)  # stored, at the next version
            sessions[i]._version = r + 2
    for i, s in enumerate(sessions):
        loaded = await service.get_session(app_name="app", user_id=s.user_id, session_id=s.id)
        assert [e.text() for e in loaded.events] == [f"{r}-{i}" for r in range(rounds)]
    loaded = await service.get_session(app_name="app", user_id="again", session_id=repeated.id)
    assert [e.id for e in loaded.events] == ["once"]
    assert sum(commits) >= len(sessions) * rounds
    await service.close()
