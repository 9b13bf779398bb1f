"""Finding apps in AGENTS_DIR the way google-adk 2.13's server does (`cli/utils/agent_loader.py`).

For an app NAME, in this order:

1. module or package `NAME` (`NAME.py` or `NAME/__init__.py`) exposing `app` (an App) or `root_agent`;
2. module `NAME.agent` (`NAME/agent.py`) exposing `app` or `root_agent`;
3. `NAME/root_agent.yaml`, an Agent Config (runtime.server.agent_config).

AGENTS_DIR may also be one agent's own folder (it holds `agent.py` or `root_agent.yaml`): then
that one app is served. `.env` in the app's folder (or above it) is loaded first, leaving
variables already set alone. Listing shows folders that hold an app, as ADK's does.
Loaded apps are cached, and so is an app that cannot be built (refused with the reason, a 4xx,
not rebuilt on every request); a name that is not a folder or module in AGENTS_DIR is never
imported. An app's `import google.adk...` is answered by Chronicle's modules when google-adk is
not installed (runtime.server.adk_imports).
"""

from __future__ import annotations

import importlib
import os
import re
import sys
import threading
from pathlib import Path
from typing import Any, Optional

from domain.errors import InvalidArgumentError
from runtime.server import adk_imports

_APP_NAME = re.compile(r"^[a-zA-Z0-9_]+$")


class AppNotFoundError(InvalidArgumentError):
    """No app of that name in AGENTS_DIR."""


class AppLoadError(InvalidArgumentError):
    """The app is there but cannot be built (a bad config, a tool that cannot be made, a failing import)."""


class AppLoader:
    def __init__(self, agents_dir: str):
        path = Path(agents_dir).resolve()
        if not path.is_dir():
            raise InvalidArgumentError(f"AGENTS_DIR {agents_dir!r} is not a folder.")
        if (path / "agent.py").is_file() or (path / "root_agent.yaml").is_file():
            self.agents_dir, self.single_app = path.parent, path.name
        else:
            self.agents_dir, self.single_app = path, None
        self._cache: dict[str, Any] = {}
        self._lock = threading.Lock()

    def list_apps(self) -> list[str]:
        if self.single_app:
            return [self.single_app]
        return sorted(
            entry.name for entry in self.agents_dir.iterdir()
            if entry.is_dir() and not entry.name.startswith((".", "__"))
            and any((entry / f).is_file() for f in ("agent.py", "root_agent.yaml", "__init__.py"))
        )

    def language(self, name: str) -> str:
        return "yaml" if (self.agents_dir / name / "root_agent.yaml").is_file() else "python"

    def check_name(self, name: str) -> None:
        """Refuses a name that does not name an app folder or module here (nothing is imported)."""
        if not _APP_NAME.match(name or "") or len(name) > 128:  # longer: no file system has such a name
            raise AppNotFoundError(f"Invalid app name {name[:60]!r}: app names are letters, digits and underscores.")
        if self.single_app and name != self.single_app:
            raise AppNotFoundError(f"App not found: {name!r}; this server serves only {self.single_app!r}.")
        if not ((self.agents_dir / name).is_dir() or (self.agents_dir / f"{name}.py").is_file()):
            raise AppNotFoundError(f"App not found: {name!r}; the apps here are {self.list_apps()}.")

    def load(self, name: str) -> Any:
        """The app's `App` or root agent (cached). An app that cannot be built is refused with the
        reason (a 4xx), and that answer is cached too: the app is built once, not on every request."""
        self.check_name(name)
        with self._lock:
            if name not in self._cache:
                try:
                    self._cache[name] = self._load(name)
                except InvalidArgumentError as e:
                    self._cache[name] = AppLoadError(str(e))
                except Exception as e:  # the app's own code failed to build: the reason, not a 500
                    self._cache[name] = AppLoadError(f"App {name!r} could not be loaded: {type(e).__name__}: {e}")
            found = self._cache[name]
        if isinstance(found, AppLoadError):
            raise AppLoadError(str(found))
        return found

    def _load(self, name: str) -> Any:
        folder = str(self.agents_dir)
        if folder not in sys.path:
            sys.path.insert(0, folder)
        adk_imports.install_if_missing()  # an app's `import google.adk...` gets Chronicle's modules
        _load_dotenv(self.agents_dir / name)
        for module_name in (name, f"{name}.agent"):
            found = _from_module(module_name, name)
            if found is not None:
                return found
        config = self.agents_dir / name / "root_agent.yaml"
        if config.is_file():
            from runtime.server.agent_config import agent_from_config

            return agent_from_config(str(config))
        raise AppNotFoundError(
            f"No root_agent found for {name!r}. Searched {name}.agent.root_agent, {name}.root_agent and "
            f"{name}{os.sep}root_agent.yaml: expose `root_agent` (an agent) or `app` (an App) in "
            f"{name}{os.sep}agent.py, or write {name}{os.sep}root_agent.yaml."
        )


def _from_module(module_name: str, app_name: str) -> Optional[Any]:
    from runtime.agents.base_agent import BaseAgent
    from runtime.app import App
    from runtime.workflow import BaseNode

    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as e:
        if e.name in (module_name, app_name):
            return None
        raise
    app = getattr(module, "app", None)
    if isinstance(app, App):
        return app
    root = getattr(module, "root_agent", None)
    if root is None:
        return None
    if not isinstance(root, (BaseAgent, BaseNode)):
        raise InvalidArgumentError(
            f"{module_name}.root_agent is a {type(root).__name__}, not an agent; expose an agent as "
            "root_agent (or an App as app)."
        )
    return root


def _load_dotenv(folder: Path) -> None:
    """The nearest `.env` at or above the app's folder, without overriding what is already set."""
    for directory in (folder, *folder.parents):
        candidate = directory / ".env"
        if candidate.is_file():
            try:
                from dotenv import load_dotenv
            except ImportError:
                return
            load_dotenv(candidate, override=False)
            return
