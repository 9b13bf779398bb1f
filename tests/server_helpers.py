"""A real `chronicle serve` in a subprocess, on a free loopback port, and HTTP clients for it.

The tests drive it with httpx (google-genai 3 ships it as `httpx2`; the API is the same)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Iterator, Optional

try:
    import httpx2 as httpx
except ImportError:  # pragma: no cover - google-genai 2's environment
    import httpx  # type: ignore[no-redef]

ROOT = Path(__file__).resolve().parent.parent
AGENTS_DIR = ROOT / "tests" / "server_agents"

TOKENS = {"tok-ann-0001": "ann", "tok-bob-0002": "bob", "tok-ops-0003": "*"}
ANN, BOB, OPS = "tok-ann-0001", "tok-bob-0002", "tok-ops-0003"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Served:
    """`chronicle serve AGENTS_DIR --store URL` running until `stop()`."""

    def __init__(self, store_url: str, *, args: tuple[str, ...] = (), env: Optional[dict[str, str]] = None,
                 tokens: Optional[dict[str, str]] = TOKENS, agents_dir: Path = AGENTS_DIR, wait: bool = True):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        full_env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
        full_env.pop("CHRONICLE_SERVER_TOKENS", None)
        if tokens is not None:
            full_env["CHRONICLE_SERVER_TOKENS"] = json.dumps(tokens)
        self.log = open(os.devnull, "w") if not os.environ.get("CHRONICLE_SERVER_LOG") else None
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tools.cli", "serve", str(agents_dir), "--store", store_url,
             "--port", str(self.port), "--log-level", "warning", *args],
            cwd=ROOT, env=full_env, stdout=self.log, stderr=subprocess.PIPE, text=True,
        )
        if wait:
            self.wait()

    def wait(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"chronicle serve exited: {self.process.stderr.read()}")
            try:
                if httpx.get(self.url + "/health", timeout=1.0).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        self.stop()
        raise RuntimeError("chronicle serve did not start in time")

    def client(self, token: Optional[str] = ANN) -> Any:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=30.0)

    def stop(self) -> str:
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        err = self.process.stderr.read() if self.process.stderr else ""
        if self.log is not None:
            self.log.close()
        return err


def message(text: str) -> dict[str, Any]:
    return {"role": "user", "parts": [{"text": text}]}


def sse_frames(response: Any) -> Iterator[dict[str, Any]]:
    """The JSON of each `data:` frame of a /run_sse response."""
    for line in response.iter_lines():
        if line.startswith("data:"):
            yield json.loads(line[len("data:"):])


def has_null(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, dict):
        return any(has_null(v) for v in value.values())
    if isinstance(value, list):
        return any(has_null(v) for v in value)
    return False
