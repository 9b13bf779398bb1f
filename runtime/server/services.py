"""What a server process holds: one store, the services over it, and a Runner per app.

Nothing here is session state: every read and every turn goes to the store, so any number of
server processes on one PostgreSQL (or one SQLite file) serve any session, and two writers on
one session meet the store's optimistic concurrency (a 409), never interleaved history."""

from __future__ import annotations

import asyncio
import functools
import importlib
import inspect
from typing import Any, Optional

from domain.errors import InvalidArgumentError, SessionNotFoundError
from runtime.artifacts import LogArtifactService
from runtime.log_reader import LogReader
from runtime.memory import LogMemoryService
from runtime.read_models import TimeTravel
from runtime.runner import Runner, runner_for
from runtime.server.app_loader import AppLoader
from runtime.server.config import ServerConfig
from runtime.server.no_apps import NoApps
from runtime.sessions import LogSessionService
from runtime.stores import open_store


class Services:
    def __init__(self, config: ServerConfig):
        self.config = config
        # Without AGENTS_DIR the server serves no app: the viewer then opens the store read-only.
        self.loader = AppLoader(config.agents_dir) if config.agents_dir else NoApps()
        self.store = open_store(config.store_url)
        self.reader = LogReader(self.store)
        self.sessions = LogSessionService(self.store)
        self.artifacts = LogArtifactService(self.store)
        self.memory = LogMemoryService(self.store)
        from runtime.server.conformance import ADK_PLUGIN_NAMES

        # ADK's conformance guide names its replay and recordings plugins; they mean Chronicle's.
        self.extra_plugins = [_plugin(ADK_PLUGIN_NAMES.get(name, name)) for name in config.extra_plugins]
        self._runners: dict[tuple[str, str], Runner] = {}
        self._lock = asyncio.Lock()

    @functools.cached_property
    def time_travel(self) -> TimeTravel:
        """State-at, diffs and timelines (made on first use: it opens read-model followers)."""
        return TimeTravel(self.store)

    @functools.cached_property
    def analytics(self) -> Any:
        """The analytics read model's follower (caught up by each request that reads it)."""
        from projections.analytics import ANALYTICS
        from runtime.read_models import runner_for

        return runner_for(self.store, ANALYTICS)

    def check_app(self, app_name: str) -> None:
        """404 for a name that is not an app here; nothing is written for it."""
        self.loader.check_name(app_name)

    def serves(self, app_name: str) -> bool:
        try:
            self.loader.check_name(app_name)
        except InvalidArgumentError:
            return False
        return True

    async def root_agent(self, app_name: str) -> Any:
        """The root agent (or node) of an app served here: what its folder defines, an App's root agent."""
        from runtime.app import App

        loaded = await asyncio.to_thread(self.loader.load, app_name)
        return loaded.root_agent if isinstance(loaded, App) else loaded

    async def session(self, app_name: str, user_id: str, session_id: str, config: Any = None) -> Any:
        """A stored session (read as `config` says: a GetSessionConfig), or SessionNotFoundError (a 404)."""
        found = await self.sessions.get_session(app_name=app_name, user_id=user_id, session_id=session_id, config=config)
        if found is None:
            raise SessionNotFoundError(app_name, user_id, session_id)
        return found

    async def check_stored(self, app_name: str, user_id: Optional[str] = None) -> None:
        """404 unless `app_name` is served here or the store holds sessions of it (of `user_id`,
        when named): a stored session is read whether or not its app is served today."""
        if self.serves(app_name):
            return
        if not await self.store.call(self.reader.sessions, app_name, user_id):
            self.loader.check_name(app_name)  # raises the loader's own 404

    async def runner(self, app_name: str, agent_app: Optional[str] = None) -> Runner:
        """The Runner of `app_name`'s sessions, with its own agent or, for a replay through another
        agent, with the agent of the app `agent_app` (each pair made once, closed with the server:
        toolsets and plugins are shared, so a request must not close them)."""
        key = (app_name, agent_app or app_name)
        runner = self._runners.get(key)
        if runner is not None:
            return runner
        async with self._lock:
            if key not in self._runners:
                loaded = await asyncio.to_thread(self.loader.load, key[1])
                self._runners[key] = runner_for(
                    loaded, app_name=app_name, plugins=self.extra_plugins,
                    session_service=self.sessions, artifact_service=self.artifacts, memory_service=self.memory,
                    auto_create_session=self.config.auto_create_session,
                )
            return self._runners[key]

    async def close(self) -> None:
        for runner in self._runners.values():
            await runner.close()
        self.store.close()


def _plugin(dotted: str) -> Any:
    """A plugin by dotted name: an instance, or a class made with no arguments."""
    module_name, _, name = dotted.rpartition(".")
    if not module_name:
        raise InvalidArgumentError(f"--extra-plugins takes dotted names such as my_pkg.plugins.Audit, got {dotted!r}.")
    found = getattr(importlib.import_module(module_name), name)
    return found() if inspect.isclass(found) else found
