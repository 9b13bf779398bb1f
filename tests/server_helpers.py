"""A real `chronicle serve` in a subprocess, on a free loopback port, and HTTP clients for it.

The tests drive it with httpx (google-genai 3 ships it as `httpx2`; the API is the same)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Iterator, Optional

from tools.serve_process import ServerProcess, free_port

try:
    import httpx2 as httpx
except ImportError:  # pragma: no cover - google-genai 2's environment
    import httpx  # type: ignore[no-redef]

ROOT = Path(__file__).resolve().parent.parent
AGENTS_DIR = ROOT / "tests" / "server_agents"

TOKENS = {"tok-ann-0001": "ann", "tok-bob-0002": "bob", "tok-ops-0003": "*"}
ANN, BOB, OPS = "tok-ann-0001", "tok-bob-0002", "tok-ops-0003"


class Served(ServerProcess):
    """`chronicle serve AGENTS_DIR --store URL` running until `stop()` (agents_dir=None: no AGENTS_DIR)."""

    def __init__(self, store_url: str, *, args: tuple[str, ...] = (), env: Optional[dict[str, str]] = None,
                 tokens: Optional[dict[str, str]] = TOKENS, agents_dir: Optional[Path] = AGENTS_DIR, wait: bool = True):
        port = free_port()
        full_env = {"PYTHONPATH": str(ROOT), "CHRONICLE_SERVER_TOKENS": json.dumps(tokens) if tokens else "", **(env or {})}
        super().__init__(
            [sys.executable, "-m", "tools.cli", "serve", *([str(agents_dir)] if agents_dir else []), "--store", store_url,
             "--port", str(port), "--log-level", "warning", *args],
            port, env=full_env, cwd=str(ROOT),
        )
        if wait:
            self.wait()

    def client(self, token: Optional[str] = ANN) -> Any:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=30.0)


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
