"""A stored session opens whether or not its app is served (issue: the viewer answered 404 for the
demo's sessions under `chronicle serve docs/agents`): reads, rewind and fork need only the stored
session; what runs the agent (run, replay, answer) needs the app, and a name neither served nor
stored is a 404 before anything is written. On every store, through the real ASGI app."""

from __future__ import annotations

import httpx

from runtime.server.app import create_app
from runtime.server.config import ServerConfig
from tools.demo import run_demo

SESSION = "/apps/demo/users/ann/sessions/d1"


async def test_a_session_of_an_app_not_served_opens_rewinds_and_forks_but_does_not_run(store_url, tmp_path):
    (tmp_path / "agents").mkdir()
    for agents_dir in (str(tmp_path / "agents"), None):  # a folder without the app, and no folder at all
        app = create_app(ServerConfig(agents_dir=agents_dir, store_url=store_url))
        async with app.router.lifespan_context(app):
            if agents_dir:
                await run_demo(app.state.services.store, session_id="d1")
            async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as client:
                assert (await client.get("/list-apps")).json() == []
                history = (await client.get(SESSION + "/history")).json()["timeline"]
                assert history["events"] >= 10
                for path in ("", "/state?version=3", "/verify", "/pending", "/export?format=jsonl", "/artifacts",
                             "/artifacts/booking.txt"):
                    assert (await client.get(SESSION + path)).status_code == 200, path
                assert "d1" in [s["id"] for s in (await client.get("/apps/demo/users/ann/sessions")).json()]
                # Writing the log needs no agent.
                if agents_dir:
                    second = history["invocations"][1]["invocation_id"]
                    rewound = await client.post(SESSION + "/rewind", json={"invocationId": second})
                    assert rewound.status_code == 200, rewound.text
                    assert (await client.get(SESSION)).json()["state"]["booking"]["people"] == 2
                    forked = await client.post(SESSION + "/fork", json={"newSessionId": "d1-copy"})
                    assert forked.status_code == 200, forked.text
                # Running the agent needs the app: a 404 that says so, and nothing written.
                before = (await client.get(SESSION)).json()["events"]
                refused = [
                    await client.post("/run", json={"appName": "demo", "userId": "ann", "sessionId": "d1",
                                                    "newMessage": {"role": "user", "parts": [{"text": "hi"}]}}),
                    await client.post(SESSION + "/replay", json={}),
                    await client.post(SESSION + "/pending/nope", json={"confirmed": True}),
                    await client.post("/apps/demo/users/ann/sessions", json={"sessionId": "new"}),
                ]
                assert [r.status_code for r in refused] == [404] * 4
                assert "App not found" in refused[0].json()["detail"]
                assert (await client.get(SESSION)).json()["events"] == before
                # A name neither served nor stored stays a 404, for reads too.
                for path in ("/apps/nowhere/users/ann/sessions", "/apps/nowhere/users/ann/sessions/d1/history",
                             "/apps/demo/users/bob/sessions/d1/history"):
                    assert (await client.get(path)).status_code == 404, path
        if store_url.startswith("memory:"):
            break  # a memory store does not outlive its server
