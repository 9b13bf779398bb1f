"""ADK's run routes: POST /run answers with the JSON list of the invocation's events, POST /run_sse
streams them as `data: <event>` frames (an error mid-stream is one `data: {"error": ...}` frame).

Both take ADK's body: app_name, user_id, session_id, new_message, streaming, state_delta,
invocation_id (to resume) and custom_metadata. Everything a request names is checked before the
run starts, so a refused request writes nothing, and a run that fails before its first event
because of the request (no such session, say) is an HTTP error on both routes. A client that goes away mid-run aborts it
through the Runner's `abort_signal`: the Runner seals the invocation (its dangling calls answered
"cancelled"), so the log records that it was cancelled and by whom it was left. A run that
records more events than the server's limit (`--max-run-events`) is aborted the same way."""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any, AsyncIterator, Optional

from google.genai import types
from sse_starlette.sse import EventSourceResponse
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from domain.errors import ChronicleError
from domain.events import Event
from runtime.run_config import RunConfig, StreamingMode
from runtime.server import access
from runtime.server.http import dump, logger, parse_body, respond
from runtime.server.routes_sessions import Body


class RunAgentRequest(Body):
    app_name: str
    user_id: str
    session_id: str
    new_message: Optional[types.Content] = None
    streaming: bool = False
    state_delta: Optional[dict[str, Any]] = None
    function_call_event_id: Optional[str] = None
    invocation_id: Optional[str] = None
    custom_metadata: Optional[dict[str, Any]] = None


_RUNNING: set[asyncio.Task] = set()  # strong references: a run outlives a client that left


def _start(coroutine: Any) -> asyncio.Task:
    task = asyncio.create_task(coroutine)
    _RUNNING.add(task)
    task.add_done_callback(_RUNNING.discard)
    return task


class TooManyEvents(ChronicleError):
    """The run yielded more events than the server allows in one request (it was cancelled)."""


class Run:
    """One checked run request: its runner, its arguments, and the signal that aborts it."""

    def __init__(self, runner: Any, req: RunAgentRequest, max_events: int):
        self.runner, self.req, self.max_events = runner, req, max_events
        self.abort = asyncio.Event()

    def events(self) -> AsyncIterator[Event]:
        req = self.req
        run_config = RunConfig(
            streaming_mode=StreamingMode.SSE if req.streaming else StreamingMode.NONE,
            custom_metadata=req.custom_metadata,
        )
        return self.runner.run_async(
            user_id=req.user_id, session_id=req.session_id, new_message=req.new_message,
            state_delta=req.state_delta, invocation_id=req.invocation_id, run_config=run_config,
            abort_signal=self.abort,
        )

    async def pump(self, out: asyncio.Queue) -> None:
        """Runs the invocation, putting each event (then None, or the error) on `out`."""
        count = 0
        try:
            agen = self.events()
            try:
                async for event in agen:
                    count += not event.partial  # the limit is on stored events, not streamed chunks
                    if count > self.max_events and not self.abort.is_set():
                        self.abort.set()  # the Runner seals the invocation; its sealing events still come
                        await out.put(TooManyEvents(
                            f"The run yielded more than {self.max_events} events, the server's limit for one "
                            "request; it was cancelled."
                        ))
                    await out.put(event)
            finally:
                await agen.aclose()
        except Exception as error:  # noqa: BLE001 - handed to the client
            await out.put(error)
        finally:
            await out.put(None)


async def _checked_run(request: Request) -> Run:
    req = await parse_body(request, RunAgentRequest)
    services = access.for_user(request, req.app_name, req.user_id)
    return Run(await services.runner(req.app_name), req, services.config.max_run_events)


async def run(request: Request) -> Response:
    checked = await _checked_run(request)
    queue: asyncio.Queue = asyncio.Queue()
    worker = _start(checked.pump(queue))
    watcher = asyncio.create_task(_abort_on_disconnect(request, checked))
    events: list[Any] = []
    try:
        while (item := await queue.get()) is not None:
            if isinstance(item, BaseException):
                await worker
                raise item
            if not item.partial:
                events.append(dump(item))
    finally:
        watcher.cancel()
    return respond(events)


async def _abort_on_disconnect(request: Request, checked: Run) -> None:
    while True:
        message = await request.receive()
        if message["type"] == "http.disconnect":
            logger.warning("Client left during a run of session %s; aborting it.", checked.req.session_id)
            checked.abort.set()
            return


async def run_sse(request: Request) -> Response:
    checked = await _checked_run(request)
    queue: asyncio.Queue = asyncio.Queue()
    worker = _start(checked.pump(queue))
    # The status waits for the run's first event: a run the request cannot start (no such session,
    # an invocation that cannot resume, a stale session: Chronicle's typed errors) is an HTTP error;
    # a failure while running (the model's, a tool's) is a 200 with an error frame, as in ADK.
    first = await queue.get()
    if isinstance(first, ChronicleError):
        await worker
        raise first
    return EventSourceResponse(_frames(checked, queue, worker, first), sep="\n", ping=None, send_timeout=None)


async def _frames(checked: Run, queue: asyncio.Queue, worker: asyncio.Task, first: Any) -> AsyncIterator[dict[str, str]]:
    item = first
    try:
        while item is not None:
            if isinstance(item, BaseException):
                yield {"data": json.dumps({"error": f"{type(item).__name__}: {item}"})}
            else:
                for event in _as_streamed(item, checked.req):
                    yield {"data": json.dumps(dump(event), ensure_ascii=False, separators=(",", ":"))}
            item = await queue.get()
    finally:
        # The client went away (or the stream ended): abort the run, and let the Runner record it.
        checked.abort.set()
        with contextlib.suppress(Exception):
            await asyncio.shield(worker)


def _as_streamed(event: Event, req: RunAgentRequest) -> list[Event]:
    """As ADK streams it: an event with both content and an artifact delta goes out as two, the
    content first, then the delta alone (ADK's web UI renders them apart)."""
    if req.function_call_event_id or not (event.actions.artifact_delta and event.content and event.content.parts):
        return [event]
    content = event.model_copy(deep=True)
    content.actions.artifact_delta = {}
    delta = event.model_copy(deep=True)
    delta.content = None
    return [content, delta]


ROUTES = [
    Route("/run", run, methods=["POST"]),
    Route("/run_sse", run_sse, methods=["POST"]),
]
