"""LiveRequest and LiveRequestQueue at google-adk 2.13's path: what a client sends a live
(bidirectional audio/video) run. Chronicle has no live mode yet (`Runner.run_live` raises
NotImplementedError), so a queue can be built and filled, as ADK code and tests do, but no run
reads it."""

from __future__ import annotations

import asyncio
from typing import Any, Optional

from google.genai import types
from pydantic import BaseModel, ConfigDict


class LiveRequest(BaseModel):
    """One request to a live agent; with several fields set the first of activity_start,
    activity_end, audio_stream_end, blob, content counts, and state_delta always applies."""

    model_config = ConfigDict(ser_json_bytes="base64", val_json_bytes="base64")

    content: Optional[types.Content] = None
    blob: Optional[types.Blob] = None
    activity_start: Optional[types.ActivityStart] = None
    activity_end: Optional[types.ActivityEnd] = None
    audio_stream_end: bool = False
    close: bool = False
    partial: bool = False
    state_delta: Optional[dict[str, Any]] = None


class LiveRequestQueue:
    """The client's side of a live run: requests in the order sent; `close()` ends the stream."""

    def __init__(self) -> None:
        self._queue: asyncio.Queue[LiveRequest] = asyncio.Queue()
        self._closed = False

    @property
    def closed(self) -> bool:
        return self._closed

    def send(self, request: LiveRequest) -> None:
        if request.close:
            self._closed = True
        self._queue.put_nowait(request)

    def close(self) -> None:
        self.send(LiveRequest(close=True))

    def send_content(self, content: types.Content, partial: bool = False) -> None:
        self.send(LiveRequest(content=content, partial=partial))

    def send_realtime(self, blob: types.Blob) -> None:
        self.send(LiveRequest(blob=blob))

    def send_activity_start(self) -> None:
        self.send(LiveRequest(activity_start=types.ActivityStart()))

    def send_activity_end(self) -> None:
        self.send(LiveRequest(activity_end=types.ActivityEnd()))

    def send_audio_stream_end(self) -> None:
        self.send(LiveRequest(audio_stream_end=True))

    async def get(self) -> LiveRequest:
        return await self._queue.get()
