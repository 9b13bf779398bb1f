"""The app loader of a server started without AGENTS_DIR (`chronicle serve --store URL`): it
serves no app, so the viewer opens the store's sessions read-only and nothing runs an agent."""

from __future__ import annotations

from typing import Any

from runtime.server.app_loader import AppNotFoundError


class NoApps:
    def list_apps(self) -> list[str]:
        return []

    def language(self, name: str) -> str:
        return "python"

    def check_name(self, name: str) -> None:
        raise AppNotFoundError(f"App not found: {name!r}; this server was started without AGENTS_DIR and serves no app.")

    def load(self, name: str) -> Any:
        self.check_name(name)
