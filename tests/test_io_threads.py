"""A store's I/O threads: calls run off the event loop and come back with their outcome."""

from __future__ import annotations

import asyncio
import threading
import time
import weakref

import pytest

from runtime.stores.io_threads import IoThreads


async def test_calls_run_in_the_threads_and_return_or_raise():
    threads = IoThreads(2)
    loop_thread = threading.current_thread()
    ran_in = await threads.call(threading.current_thread)
    assert ran_in is not loop_thread and ran_in.name.startswith("chronicle-store")
    assert await threads.call(pow, 2, 10) == 1024
    with pytest.raises(ZeroDivisionError):
        await threads.call(lambda: 1 / 0)
    threads.close()


async def test_the_loop_runs_while_a_call_blocks():
    threads = IoThreads(1)
    ticks = 0

    async def tick():
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0.005)

    ticker = asyncio.create_task(tick())
    await threads.call(time.sleep, 0.2)
    ticker.cancel()
    assert ticks >= 10
    threads.close()


async def test_a_cancelled_caller_leaves_the_threads_working():
    threads = IoThreads(1)
    started = threading.Event()
    waiting = asyncio.create_task(threads.call(lambda: (started.set(), time.sleep(0.1))))
    await asyncio.get_running_loop().run_in_executor(None, started.wait)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    assert await threads.call(lambda: "still serving") == "still serving"
    threads.close()


async def test_close_finishes_queued_calls_then_refuses_new_ones():
    threads = IoThreads(1)
    done: list[int] = []
    calls = [asyncio.create_task(threads.call(lambda i=i: (time.sleep(0.01), done.append(i)))) for i in range(5)]
    await asyncio.sleep(0)  # let every task queue its call
    await asyncio.get_running_loop().run_in_executor(None, threads.close)
    assert done == [0, 1, 2, 3, 4]
    await asyncio.gather(*calls)
    with pytest.raises(RuntimeError, match="closed"):
        await threads.call(int)


async def test_a_call_racing_close_is_served_or_refused_never_left_waiting():
    loop = asyncio.get_running_loop()
    for _ in range(50):
        threads = IoThreads(1)
        await threads.call(int)  # threads running
        closing = loop.run_in_executor(None, threads.close)
        try:
            assert await asyncio.wait_for(threads.call(lambda: "served"), timeout=5) == "served"
        except RuntimeError as refused:
            assert "closed" in str(refused)
        await closing


async def test_a_result_is_freed_where_its_caller_lets_go_of_it():
    # Freeing a large result (a long session's events) takes milliseconds: it must happen
    # when the caller drops it, not later in the next call's time or on a store thread.
    class Result:
        pass

    threads = IoThreads(1)
    for _ in range(20):
        result = await threads.call(Result)
        freed_by = []
        weakref.finalize(result, lambda: freed_by.append(threading.current_thread()))
        del result
        assert freed_by == [threading.current_thread()]
    threads.close()


async def test_a_lone_caller_keeps_to_one_thread_and_no_more_are_started():
    threads = IoThreads(8, name="lone-caller")
    ran_in = {await threads.call(threading.current_thread) for _ in range(20)}
    assert len(ran_in) == 1
    assert [t for t in threading.enumerate() if t.name.startswith("lone-caller")] == list(ran_in)
    threads.close()


async def test_calls_run_side_by_side_up_to_the_thread_count_then_wait_their_turn():
    threads = IoThreads(3, name="side-by-side")
    together = threading.Barrier(3, timeout=5)  # breaks unless three calls run at once

    def meet() -> str:
        together.wait()
        return threading.current_thread().name

    met = asyncio.gather(*(threads.call(meet) for _ in range(3)))
    later = asyncio.gather(*(threads.call(lambda i=i: i * i) for i in range(10)))
    assert len(set(await met)) == 3
    assert await later == [i * i for i in range(10)]
    assert len([t for t in threading.enumerate() if t.name.startswith("side-by-side")]) == 3
    threads.close()


async def test_the_thread_that_went_idle_last_takes_the_next_call():
    threads = IoThreads(3)
    together = threading.Barrier(3, timeout=5)
    names = await asyncio.gather(*(threads.call(lambda: (together.wait(), threading.current_thread().name)[1]) for _ in range(3)))
    assert len(set(names)) == 3
    for _ in range(10):
        last = await threads.call(lambda: threading.current_thread().name)
        assert await threads.call(lambda: threading.current_thread().name) == last
    threads.close()
