"""What one server is told: where the apps and the store are, who may call, and its limits.

A `ServerConfig` is plain data, so `chronicle serve --workers N` can hand the same one to every
worker process (through the environment, as JSON: `to_env` / `from_env`)."""

from __future__ import annotations

import dataclasses
import json
import os
from dataclasses import dataclass, field
from typing import Optional

ENV_VAR = "CHRONICLE_SERVER_CONFIG"


@dataclass
class ServerConfig:
    agents_dir: Optional[str]
    """The folder of apps; None serves no app (the viewer then opens the store read-only)."""
    store_url: str = "sqlite:///chronicle.db"
    extra_plugins: list[str] = field(default_factory=list)
    """Plugin classes or instances by dotted name, added to every app (as ADK's --extra_plugins)."""
    tokens_file: Optional[str] = None
    """A JSON file mapping bearer tokens to the users they act for (see runtime.server.auth)."""
    tokens_env: str = "CHRONICLE_SERVER_TOKENS"
    """The environment variable that may hold the same JSON instead of a file."""
    authenticator: Optional[str] = None
    """A dotted name of an Authenticator class, for authentication other than bearer tokens."""
    cors_origins: list[str] = field(default_factory=list)
    """Origins allowed to call from a browser; empty means CORS is off."""
    max_body_bytes: int = 10 * 1024 * 1024
    max_run_events: int = 1000
    """At most this many events in one /run or /run_sse (the run is cancelled past it)."""
    auto_create_session: bool = False
    seal_key_file: Optional[str] = None
    """A seal key file: the server then seals the store every ``seal_every`` seconds (runtime.server.sealing)."""
    seal_every: float = 300.0

    def to_env(self) -> dict[str, str]:
        return {ENV_VAR: json.dumps(dataclasses.asdict(self))}

    @staticmethod
    def from_env() -> ServerConfig:
        raw = os.environ.get(ENV_VAR)
        if not raw:
            raise RuntimeError(f"{ENV_VAR} is not set: start the server with `chronicle serve`.")
        return ServerConfig(**json.loads(raw))
