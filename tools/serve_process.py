"""Start an HTTP server in a subprocess on a free loopback port, for tests and benchmarks: a
`chronicle serve`, or google-adk's `adk api_server` beside it."""

from __future__ import annotations

import os
import socket
import subprocess
import tempfile
import time
from typing import Optional
from urllib.error import URLError
from urllib.request import urlopen


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServerProcess:
    """`argv` (which must take the port given) running until `stop()`; `wait()` until /health answers."""

    def __init__(self, argv: list[str], port: int, *, env: Optional[dict[str, str]] = None, cwd: Optional[str] = None):
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        # stderr goes to a file, not a pipe: a server that logs more than a pipe holds while
        # nobody reads it would block mid-request.
        self._stderr = tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace")
        self.process = subprocess.Popen(
            argv, cwd=cwd, env={**os.environ, **(env or {})}, stdout=subprocess.DEVNULL, stderr=self._stderr,
        )

    def stderr(self) -> str:
        self._stderr.seek(0)
        return self._stderr.read()

    def wait(self, timeout: float = 120.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited: {self.stderr()[-4000:]}")
            try:
                with urlopen(self.url + "/health", timeout=1.0) as answer:
                    if answer.status == 200:
                        return
            except (URLError, OSError):
                pass
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"the server did not answer /health within {timeout:.0f}s")

    def stop(self) -> str:
        """Stops it and returns what it wrote to stderr."""
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        return self.stderr()
