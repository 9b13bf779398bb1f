"""Scale out, not up: two `chronicle serve` processes on one PostgreSQL (one of them with two
workers), a client alternating between them for a whole conversation."""

from __future__ import annotations

import os
import threading
import uuid
from typing import Any

import pytest

from tests.server_helpers import ANN, Served, message

pytestmark = pytest.mark.postgres


@pytest.fixture(scope="module")
def pair(pg_server):
    url = pg_server.create_database(f"pair_{os.getpid()}_{uuid.uuid4().hex[:8]}")
    first, second = Served(url, wait=False), Served(url, args=("--workers", "2"), wait=False)
    try:
        first.wait()
        second.wait()
        yield first, second
    finally:
        first.stop()
        second.stop()


def _run(client: Any, session_id: str, text: str) -> Any:
    return client.post("/run", json={"appName": "slow", "userId": "ann", "sessionId": session_id,
                                     "newMessage": message(text)})


def test_a_conversation_alternating_between_two_servers_lands_every_turn_once_in_order(pair):
    first, second = pair
    with first.client(ANN) as a, second.client(ANN) as b:
        session = a.post("/apps/slow/users/ann/sessions", json={}).json()
        clients = [a, b]
        for turn in range(8):
            response = _run(clients[turn % 2], session["id"], f"turn {turn}")
            assert response.status_code == 200, response.text
            assert response.json()[-1]["content"]["parts"][0]["text"] == f"echo: turn {turn}"
        for client in clients:  # both processes read the same history
            events = client.get(f"/apps/slow/users/ann/sessions/{session['id']}").json()["events"]
            texts = [e["content"]["parts"][0]["text"] for e in events]
            assert texts == [t for turn in range(8) for t in (f"turn {turn}", f"echo: turn {turn}")]


def test_a_concurrent_turn_from_the_other_server_gets_409(pair):
    first, second = pair
    with first.client(ANN) as a, second.client(ANN) as b:
        session = a.post("/apps/slow/users/ann/sessions", json={}).json()
        results: dict[str, Any] = {}
        slow = threading.Thread(target=lambda: results.setdefault("slow", _run(a, session["id"], "wait 1.5")))
        slow.start()
        threading.Event().wait(0.7)
        results["fast"] = _run(b, session["id"], "hello")
        slow.join()
        assert sorted(r.status_code for r in results.values()) == [200, 409]
        events = a.get(f"/apps/slow/users/ann/sessions/{session['id']}").json()["events"]
        seen: list[str] = []
        for e in events:  # each invocation's events are contiguous
            if not seen or seen[-1] != e["invocationId"]:
                assert e["invocationId"] not in seen
                seen.append(e["invocationId"])
