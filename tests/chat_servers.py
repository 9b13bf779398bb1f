"""Local HTTP servers that speak two model protocols, for the real LiteLLM and Anthropic clients:
OpenAI's chat completions (`POST /v1/chat/completions`) and Anthropic's messages API
(`POST /v1/messages`). Each answers the n-th request with the n-th scripted reply, as JSON or,
when the request asks for a stream, as server-sent events built from the same reply; every
request body is kept in `.requests`.

    with OpenAiServer() as server:
        server.reply(text="Hello")                       # or calls=[("get_weather", {"city": "Oslo"})]
        LiteLlm(model="openai/gpt-x", api_base=server.url + "/v1", api_key="k")
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterator, Optional

JSON = dict[str, Any]


@dataclass
class Reply:
    text: str = ""
    calls: list[tuple[str, JSON]] = field(default_factory=list)  # (name, arguments)
    stop: Optional[str] = None  # the provider's stop reason; by default the natural one
    status: int = 200


class _ScriptedServer:
    path = ""

    def __init__(self) -> None:
        self.requests: list[JSON] = []
        self._replies: list[Reply] = []
        self._lock = threading.Lock()
        self._httpd: Optional[ThreadingHTTPServer] = None
        self.url = ""

    def reply(self, text: str = "", calls: Optional[list[tuple[str, JSON]]] = None, *,
              stop: Optional[str] = None, status: int = 200) -> None:
        with self._lock:
            self._replies.append(Reply(text, list(calls or []), stop, status))

    def _next(self, body: JSON) -> Optional[Reply]:
        with self._lock:
            self.requests.append(body)
            return self._replies.pop(0) if self._replies else None

    # Each protocol: the JSON answer, the stream's events (name, data), an error body.
    def answer(self, reply: Reply, number: int) -> JSON:
        raise NotImplementedError

    def events(self, reply: Reply, number: int) -> list[tuple[Optional[str], Any]]:
        raise NotImplementedError

    def error(self, status: int, message: str) -> JSON:
        raise NotImplementedError

    def __enter__(self) -> _ScriptedServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                if self.path.split("?")[0] != server.path:
                    return self._json(404, server.error(404, f"no route {self.path}"))
                reply = server._next(body)
                number = len(server.requests)
                if reply is None:
                    return self._json(500, server.error(500, f"no scripted reply for request #{number}"))
                if reply.status != 200:
                    return self._json(reply.status, server.error(reply.status, "scripted error"))
                if not body.get("stream"):
                    return self._json(200, server.answer(reply, number))
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                for name, data in server.events(reply, number):
                    head = f"event: {name}\n" if name else ""
                    payload = data if isinstance(data, str) else json.dumps(data)
                    self.wfile.write(f"{head}data: {payload}\n\n".encode())
                    self.wfile.flush()

            def _json(self, status: int, body: JSON) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        host, port = self._httpd.server_address[:2]
        self.url = f"http://{host}:{port}"
        threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()


def _halves(text: str) -> list[str]:
    """A text in two chunks, so a stream has more than one."""
    middle = len(text) // 2
    return [t for t in (text[:middle], text[middle:]) if t]


class OpenAiServer(_ScriptedServer):
    path = "/v1/chat/completions"

    def _usage(self) -> JSON:
        return {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}

    def _calls(self, reply: Reply, number: int) -> list[JSON]:
        return [{"id": f"call_{number}_{i}", "type": "function",
                 "function": {"name": name, "arguments": json.dumps(args)}}
                for i, (name, args) in enumerate(reply.calls)]

    def _stop(self, reply: Reply) -> str:
        return reply.stop or ("tool_calls" if reply.calls else "stop")

    def answer(self, reply: Reply, number: int) -> JSON:
        message: JSON = {"role": "assistant", "content": reply.text or None}
        if reply.calls:
            message["tool_calls"] = self._calls(reply, number)
        return {"id": f"chatcmpl-{number}", "object": "chat.completion", "created": 0, "model": "gpt-test",
                "choices": [{"index": 0, "message": message, "finish_reason": self._stop(reply)}],
                "usage": self._usage()}

    def events(self, reply: Reply, number: int) -> list[tuple[Optional[str], Any]]:
        def chunk(delta: JSON, finish: Optional[str] = None, **extra: Any) -> tuple[None, JSON]:
            return None, {"id": f"chatcmpl-{number}", "object": "chat.completion.chunk", "created": 0,
                          "model": "gpt-test", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
                          **extra}

        out = [chunk({"role": "assistant", "content": piece}) for piece in _halves(reply.text)]
        for i, call in enumerate(self._calls(reply, number)):
            arguments = call["function"]["arguments"]
            out.append(chunk({"tool_calls": [{"index": i, "id": call["id"], "type": "function",
                                              "function": {"name": call["function"]["name"], "arguments": ""}}]}))
            for piece in _halves(arguments):
                out.append(chunk({"tool_calls": [{"index": i, "function": {"arguments": piece}}]}))
        out.append(chunk({}, self._stop(reply)))
        out.append((None, {"id": f"chatcmpl-{number}", "object": "chat.completion.chunk", "created": 0,
                           "model": "gpt-test", "choices": [], "usage": self._usage()}))
        out.append((None, "[DONE]"))
        return out

    def error(self, status: int, message: str) -> JSON:
        return {"error": {"message": message, "type": "invalid_request_error", "code": status}}


class AnthropicServer(_ScriptedServer):
    path = "/v1/messages"

    def _blocks(self, reply: Reply, number: int) -> list[JSON]:
        blocks: list[JSON] = [{"type": "text", "text": reply.text}] if reply.text else []
        blocks += [{"type": "tool_use", "id": f"toolu_{number}_{i}", "name": name, "input": args}
                   for i, (name, args) in enumerate(reply.calls)]
        return blocks

    def _stop(self, reply: Reply) -> str:
        return reply.stop or ("tool_use" if reply.calls else "end_turn")

    def answer(self, reply: Reply, number: int) -> JSON:
        return {"id": f"msg_{number}", "type": "message", "role": "assistant", "model": "claude-test",
                "content": self._blocks(reply, number), "stop_reason": self._stop(reply), "stop_sequence": None,
                "usage": {"input_tokens": 13, "output_tokens": 5}}

    def events(self, reply: Reply, number: int) -> list[tuple[Optional[str], Any]]:
        out: list[tuple[Optional[str], Any]] = [("message_start", {"type": "message_start", "message": {
            "id": f"msg_{number}", "type": "message", "role": "assistant", "model": "claude-test", "content": [],
            "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 13, "output_tokens": 1}}})]
        for index, block in enumerate(self._blocks(reply, number)):
            if block["type"] == "text":
                out.append(("content_block_start", {"type": "content_block_start", "index": index,
                                                    "content_block": {"type": "text", "text": ""}}))
                out += [("content_block_delta", {"type": "content_block_delta", "index": index,
                                                 "delta": {"type": "text_delta", "text": piece}})
                        for piece in _halves(block["text"])]
            else:
                out.append(("content_block_start", {"type": "content_block_start", "index": index, "content_block": {
                    "type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}}))
                out += [("content_block_delta", {"type": "content_block_delta", "index": index,
                                                 "delta": {"type": "input_json_delta", "partial_json": piece}})
                        for piece in _halves(json.dumps(block["input"]))]
            out.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
        out.append(("message_delta", {"type": "message_delta", "delta": {
            "stop_reason": self._stop(reply), "stop_sequence": None}, "usage": {"output_tokens": 5}}))
        out.append(("message_stop", {"type": "message_stop"}))
        return out

    def error(self, status: int, message: str) -> JSON:
        return {"type": "error", "error": {"type": "invalid_request_error", "message": message}}


def running(server_class: type[_ScriptedServer]) -> Iterator[Any]:
    with server_class() as server:
        yield server
