"""A local stand-in for the Gemini API, so the real google-genai SDK runs in tests without the internet.

It speaks the REST protocol the SDK uses with an API key (header x-goog-api-key):

    POST /{version}/models/{model}:generateContent               -> one GenerateContentResponse (JSON)
    POST /{version}/models/{model}:streamGenerateContent?alt=sse -> text/event-stream of `data: {json}`

({version} is whatever the SDK asks for: google-genai 3.x defaults to v1, older releases to v1beta.)

A test scripts the answers in order and reads back what the SDK sent:

    def test_something(gemini_server):
        gemini_server.reply_text("Hello!")
        llm = Gemini(api_key="test-key", base_url=gemini_server.url)
        ...
        assert gemini_server.requests[0].body["contents"][0]["role"] == "user"

Use the fixture by importing it into the test module: `from tests.gemini_server import gemini_server`.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Iterator, Optional, Union
from urllib.parse import parse_qs, unquote, urlsplit

import pytest

JSON = dict[str, Any]

# Gemini's status names for the HTTP codes a test is likely to script.
_STATUS_NAMES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}


# Response bodies, in the camelCase JSON the API returns.


def usage(prompt_tokens: int = 10, candidates_tokens: int = 5) -> JSON:
    return {
        "promptTokenCount": prompt_tokens,
        "candidatesTokenCount": candidates_tokens,
        "totalTokenCount": prompt_tokens + candidates_tokens,
    }


def response_json(
    parts: list[JSON],
    *,
    finish_reason: Optional[str] = "STOP",
    usage_metadata: Optional[JSON] = None,
    model_version: str = "gemini-test",
) -> JSON:
    """A GenerateContentResponse with one candidate made of `parts`."""
    candidate: JSON = {"content": {"role": "model", "parts": parts}, "index": 0}
    if finish_reason:
        candidate["finishReason"] = finish_reason
    body: JSON = {"candidates": [candidate], "modelVersion": model_version}
    if usage_metadata is not None:
        body["usageMetadata"] = usage_metadata
    return body


def text_part(text: str, *, thought: bool = False) -> JSON:
    return {"text": text, "thought": True} if thought else {"text": text}


def function_call_part(name: str, args: Optional[JSON] = None, *, id: Optional[str] = None) -> JSON:
    call: JSON = {"name": name, "args": args or {}}
    if id is not None:
        call["id"] = id
    return {"functionCall": call}


def error_json(code: int, message: str, status: Optional[str] = None) -> JSON:
    return {"error": {"code": code, "message": message, "status": status or _STATUS_NAMES.get(code, "UNKNOWN")}}


# What the server received and what it will answer.


@dataclass
class RecordedRequest:
    method: str
    path: str  # e.g. /v1/models/gemini-2.5-flash:generateContent
    query: dict[str, list[str]]
    headers: dict[str, str]  # lower-cased names
    body: Any  # the decoded JSON body

    @property
    def model(self) -> str:
        """The model named in the path."""
        return unquote(self.path.rsplit("/models/", 1)[-1].split(":", 1)[0])

    @property
    def method_name(self) -> str:
        """`generateContent` or `streamGenerateContent`."""
        return self.path.rsplit(":", 1)[-1]

    @property
    def streaming(self) -> bool:
        return self.method_name == "streamGenerateContent"


@dataclass
class _Reply:
    status: int = 200
    body: Optional[JSON] = None  # one response (served as one SSE chunk to a streaming request)
    chunks: Optional[list[JSON]] = None  # a stream; refused to a non-streaming request
    chunk_delay: float = 0.0


Responder = Callable[[RecordedRequest], Union[JSON, list[JSON]]]


@dataclass
class GeminiServer:
    """The fake API. Scripted replies are served first-in first-out; when none is left, `responder`
    (if set) answers from the request (a dict is one response, a list of dicts is a stream)."""

    url: str = ""
    requests: list[RecordedRequest] = field(default_factory=list)
    responder: Optional[Responder] = None
    _replies: list[_Reply] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _httpd: Optional[ThreadingHTTPServer] = None

    # Scripting.

    def reply(self, body: JSON) -> None:
        """Answers the next call with this raw GenerateContentResponse JSON."""
        self._push(_Reply(body=body))

    def reply_text(
        self, text: str, *, finish_reason: str = "STOP", prompt_tokens: int = 10, candidates_tokens: int = 5
    ) -> None:
        self.reply(response_json([text_part(text)], finish_reason=finish_reason,
                                 usage_metadata=usage(prompt_tokens, candidates_tokens)))

    def reply_function_call(self, name: str, args: Optional[JSON] = None, *, id: Optional[str] = None) -> None:
        self.reply(response_json([function_call_part(name, args, id=id)], usage_metadata=usage()))

    def reply_stream(
        self,
        chunks: list[Union[str, JSON]],
        *,
        finish_reason: str = "STOP",
        prompt_tokens: int = 10,
        candidates_tokens: int = 5,
        chunk_delay: float = 0.0,
    ) -> None:
        """Answers the next (streaming) call with one SSE event per chunk. A str is a text chunk, a
        dict is a part (e.g. `function_call_part(...)`) or, if it has "candidates", a whole chunk.
        The last chunk with a candidate gets the finish reason and, unless a chunk has its own, the
        last chunk gets the usage of the turn, as Gemini's streams do."""
        bodies = []
        for chunk in chunks:
            if isinstance(chunk, str):
                bodies.append(response_json([text_part(chunk)], finish_reason=None))
            elif "candidates" in chunk or "promptFeedback" in chunk:
                bodies.append(chunk)
            else:
                bodies.append(response_json([chunk], finish_reason=None))
        with_candidates = [b for b in bodies if b.get("candidates")]
        if with_candidates:
            with_candidates[-1]["candidates"][0].setdefault("finishReason", finish_reason)
        if bodies and not any("usageMetadata" in b for b in bodies):
            bodies[-1]["usageMetadata"] = usage(prompt_tokens, candidates_tokens)
        self._push(_Reply(chunks=bodies, chunk_delay=chunk_delay))

    def reply_error(self, status: int, message: str = "", *, status_name: Optional[str] = None) -> None:
        """Answers the next call with an HTTP error in Gemini's error JSON."""
        message = message or f"Scripted error {status}."
        self._push(_Reply(status=status, body=error_json(status, message, status_name)))

    @property
    def pending(self) -> int:
        """Scripted replies not served yet."""
        with self._lock:
            return len(self._replies)

    def _push(self, reply: _Reply) -> None:
        with self._lock:
            self._replies.append(reply)

    def _next(self, request: RecordedRequest) -> _Reply:
        with self._lock:
            self.requests.append(request)
            if self._replies:
                return self._replies.pop(0)
        if self.responder is not None:
            answer = self.responder(request)
            return _Reply(chunks=answer) if isinstance(answer, list) else _Reply(body=answer)
        return _Reply(status=500, body=error_json(
            500, f"gemini_server: no scripted reply left for request #{len(self.requests)} "
                 f"({request.method_name}); script one with reply_text()/reply_stream()/..."))

    # Lifecycle.

    def start(self) -> GeminiServer:
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._httpd.daemon_threads = True
        host, port = self._httpd.server_address[:2]
        self.url = f"http://{host}:{port}"
        threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, name="gemini-server", daemon=True
        ).start()
        return self

    def close(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> GeminiServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.close()


def _handler_for(server: GeminiServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
            url = urlsplit(self.path)
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw) if raw else None
            except json.JSONDecodeError:
                body = raw.decode("utf-8", "replace")
            request = RecordedRequest(
                method="POST",
                path=url.path,
                query=parse_qs(url.query),
                headers={k.lower(): v for k, v in self.headers.items()},
                body=body,
            )
            if request.method_name not in ("generateContent", "streamGenerateContent"):
                with server._lock:
                    server.requests.append(request)
                self._send_json(404, error_json(404, f"gemini_server does not serve {url.path}"))
                return
            reply = server._next(request)
            if reply.status != 200:
                self._send_json(reply.status, reply.body or {})
            elif request.streaming:
                self._send_stream(reply.chunks if reply.chunks is not None else [reply.body or {}],
                                  reply.chunk_delay)
            elif reply.chunks is not None:
                self._send_json(500, error_json(
                    500, "gemini_server: a stream was scripted but the SDK called generateContent"))
            else:
                self._send_json(200, reply.body or {})

        def _send_json(self, status: int, body: JSON) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=UTF-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _send_stream(self, chunks: list[JSON], delay: float) -> None:
            # HTTP/1.0 without a length: the stream ends when the connection closes.
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            for i, chunk in enumerate(chunks):
                if i and delay:
                    time.sleep(delay)
                self.wfile.write(f"data: {json.dumps(chunk)}\r\n\r\n".encode())
                self.wfile.flush()

        def log_message(self, format: str, *args: Any) -> None:
            pass  # keep test output quiet

    return Handler


@pytest.fixture
def gemini_server() -> Iterator[GeminiServer]:
    """A running fake Gemini API; `gemini_server.url` is its base_url."""
    with GeminiServer() as server:
        yield server
