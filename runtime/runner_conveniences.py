"""The Runner's conveniences over `run_async`: a synchronous `run` for scripts, and `run_debug`, which
sends messages in turn and prints the conversation as google-adk prints it. A base of `Runner`."""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
from typing import Any, Iterator, Optional

from google.genai import types

from domain.events import Event
from runtime.run_config import RunConfig
from runtime.session_cache import FRESHNESS_CHECK

logger = logging.getLogger("chronicle.runner")  # the Runner's logger, as run_debug logs to it


class RunnerConveniences:
    """Needs `run_async`, `session_service` and `app_name` from the Runner it is a base of."""

    def run(
        self,
        *,
        user_id: str,
        session_id: str,
        new_message: Optional[types.Content] = None,
        run_config: Optional[RunConfig] = None,
        **kwargs: Any,
    ) -> Iterator[Event]:
        """A synchronous `run_async`: runs it on an event loop in a background thread and yields
        its events here. Errors are raised in the caller. For scripts and tests; servers should
        use `run_async`."""
        events: queue.Queue[tuple[str, Any]] = queue.Queue()
        stop = threading.Event()

        async def pump() -> None:
            agen = self.run_async(
                user_id=user_id, session_id=session_id, new_message=new_message, run_config=run_config, **kwargs
            )
            try:
                async for event in agen:
                    events.put(("event", event))
                    if stop.is_set():
                        break
            finally:
                await agen.aclose()

        def main() -> None:
            try:
                asyncio.run(pump())
            except BaseException as error:  # noqa: BLE001 - re-raised in the caller's thread
                events.put(("error", error))
            finally:
                events.put(("done", None))

        thread = threading.Thread(target=main, name="chronicle-runner", daemon=True)
        thread.start()
        try:
            while True:
                kind, item = events.get()
                if kind == "event":
                    yield item
                elif kind == "error":
                    raise item
                else:
                    break
        finally:
            stop.set()
            thread.join()

    async def run_debug(
        self,
        user_messages: str | list[str],
        *,
        user_id: str = "debug_user_id",
        session_id: str = "debug_session_id",
        run_config: Optional[RunConfig] = None,
        quiet: bool = False,
        verbose: bool = False,
    ) -> list[Event]:
        """Sends each message in turn (creating the session if needed), prints the conversation
        unless `quiet` (as google-adk prints it: runtime.debug_output), and returns every event."""
        from runtime.debug_output import print_event

        run_config = run_config or RunConfig()
        session = await self.session_service.get_session(
            app_name=self.app_name, user_id=user_id, session_id=session_id,
            config=run_config.get_session_config or FRESHNESS_CHECK,  # only whether it exists
        )
        if session is None:
            await self.session_service.create_session(app_name=self.app_name, user_id=user_id, session_id=session_id)
            if not quiet:
                logger.info("Created new session: %s", session_id)
        elif not quiet:
            logger.info("Continue session: %s", session_id)
        if isinstance(user_messages, str):
            user_messages = [user_messages]
        collected: list[Event] = []
        for message in user_messages:
            if not quiet:
                logger.info("User > %s", message)
            async for event in self.run_async(
                user_id=user_id,
                session_id=session_id,
                new_message=types.Content(role="user", parts=[types.Part(text=message)]),
                run_config=run_config,
            ):
                if not quiet:
                    print_event(event, verbose=verbose)
                collected.append(event)
        return collected
