"""Sealing from the server: ``chronicle serve --seal-key FILE --seal-every SECONDS`` writes a signed
checkpoint (``runtime.operations.seal``) every so often in the background, and once more when the
server stops, so what it served is sealed. Several server processes on one store may all seal:
a checkpoint clashing with another's is written after it, and an unchanged store gets none."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any, Optional

from runtime.server.config import ServerConfig

log = logging.getLogger("chronicle.server.sealing")


class PeriodicSealer:
    def __init__(self, store: Any, key: Any, every: float):
        self.store, self.key, self.every = store, key, every
        self._task: Optional[asyncio.Task[None]] = None

    def start(self) -> PeriodicSealer:
        self._task = asyncio.create_task(self._run(), name="chronicle periodic sealing")
        return self

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.every)
            await self.seal_now()

    async def seal_now(self) -> None:
        from runtime.operations.seal import seal

        try:
            written = await self.store.call(seal, self.store, self.key)
        except Exception as e:  # noqa: BLE001 - a failed seal must not stop the server; the next one retries
            log.warning("sealing the store failed: %s", e)
            return
        if written:
            log.info("sealed checkpoint #%d (%d logs changed)", written[-1].sequence, sum(len(c.heads) for c in written))

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            await self.seal_now()


class _NotSealing:
    async def stop(self) -> None:
        return None


def start_sealing(store: Any, config: ServerConfig) -> PeriodicSealer | _NotSealing:
    """Starts sealing when the config names a seal key (the task of the app's lifespan)."""
    if not config.seal_key_file:
        return _NotSealing()
    from runtime.operations.seal import load_key

    return PeriodicSealer(store, load_key(config.seal_key_file), config.seal_every).start()
