"""Reading ahead: a check's next batch read while it checks this one, where the store gains by it
(``Store.prefetches``: on PostgreSQL a read waits on the server, which works meanwhile)."""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any, Callable, Iterator

from runtime.stores import Store

Load = Callable[..., "Future[Any]"]


@contextmanager
def read_ahead(store: Store) -> Iterator[Load]:
    """``load(fn, *args)``: a future of ``fn(*args)``, called in a thread of its own when the store
    gains by it, else at once."""
    if not store.prefetches:
        yield _now
        return
    with ThreadPoolExecutor(1, thread_name_prefix="verify-read") as pool:
        yield pool.submit


def _now(fn: Callable[..., Any], *args: Any) -> Future[Any]:
    future: Future[Any] = Future()
    try:
        future.set_result(fn(*args))
    except BaseException as error:  # noqa: BLE001 - raised where the result is taken
        future.set_exception(error)
    return future
