"""The projection worker process on a shared store (SQLite file, PostgreSQL): it follows the
writers, and killed mid-stream (SIGKILL) and restarted it ends with exactly a rebuild's rows."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time

from projections import ANALYTICS, SCOPED_STATE, Projection
from runtime.read_models import ProjectionFollower
from runtime.read_models.worker import resolve_projection
from runtime.sessions import session_service_from_url
from runtime.stores import open_store
from tests.test_projections_support import canonical, event

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def start_worker(url: str, *projections: str, log: str) -> subprocess.Popen[bytes]:
    args = [sys.executable, "-m", "runtime.read_models.worker", "--store", url, "--batch", "3", "--poll", "0.01"]
    for name in projections:
        args += ["--projection", name]
    env = {**os.environ, "PYTHONPATH": ROOT}
    with open(log, "ab") as err:
        return subprocess.Popen(args, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=err)


async def wait_following(log: str, times: int) -> None:
    """Until the worker log says `following` that many times (the worker has opened the store)."""
    deadline = time.monotonic() + 30
    while open(log).read().count("following") < times:
        assert time.monotonic() < deadline, open(log).read()
        await asyncio.sleep(0.02)


def wait_caught_up(runner: ProjectionFollower, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while runner.position() < runner.source.max_position():
        assert time.monotonic() < deadline, f"{runner.name} stuck at {runner.position()}"
        time.sleep(0.02)


async def test_a_killed_worker_resumes_and_ends_with_a_rebuilds_rows(shared_store_url, tmp_path):
    service = session_service_from_url(shared_store_url)
    sessions = [await service.create_session(app_name="w", user_id=f"u{i % 2}") for i in range(4)]
    log = str(tmp_path / "worker.log")
    worker = start_worker(shared_store_url, "analytics", "scoped_state", log=log)
    await wait_following(log, 1)
    observer = open_store(shared_store_url)
    watch = ProjectionFollower(observer, ANALYTICS)  # reads positions only
    try:
        for i in range(120):
            s = sessions[i % 4]
            await service.append_event(s, event(
                "agent" if i % 3 else "user", f"i{i // 6}", text=str(i), usage=(5, 5) if i % 3 else None,
                delta={"n": i, "user:last": i, "app:total": i},
            ))
            if i == 50:
                # Kill it while it is working through the backlog, then start another one.
                deadline = time.monotonic() + 20
                while watch.position() == 0:
                    assert time.monotonic() < deadline, open(log).read()
                    await asyncio.sleep(0.01)
                worker.send_signal(signal.SIGKILL)
                worker.wait(10)
                killed_at = watch.position()
                worker = start_worker(shared_store_url, "analytics", "scoped_state", log=log)
                # Let it open the store before writing on: opening a PostgreSQL store runs
                # CREATE INDEX IF NOT EXISTS, which can deadlock with a concurrent append.
                await wait_following(log, 2)
        for projection in (ANALYTICS, SCOPED_STATE):
            wait_caught_up(ProjectionFollower(observer, projection))
    finally:
        worker.send_signal(signal.SIGTERM)
        assert worker.wait(10) == 0, open(log).read()
    assert 0 < killed_at
    for projection in (ANALYTICS, SCOPED_STATE):
        live = ProjectionFollower(observer, projection)
        rebuilt = ProjectionFollower(observer, Projection(projection.name + "_check", folds=projection.folds))
        rebuilt.rebuild()
        assert canonical(live.rows()) == canonical(rebuilt.rows()), projection.name
    assert ProjectionFollower(observer, ANALYTICS).view("w").totals.events == 120
    observer.close()
    await service.close()


def test_worker_finds_built_in_and_user_projections():
    assert resolve_projection("analytics") is ANALYTICS
    assert resolve_projection("projections.state:SCOPED_STATE") is SCOPED_STATE
