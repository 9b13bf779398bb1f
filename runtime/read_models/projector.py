"""The tracked read models of one store, in one place: keep them live, rebuild them, query them.

    projector = Projector(store)                 # scoped_state, artifacts and analytics
    projector.catch_up()                         # fold whatever the log holds (inline mode)
    projector.start()                            # or follow the log in background threads
    projector.scoped_state("shop", "ann")        # {"app:…": …, "user:…": …}
    print(projector.analytics_table("shop"))

A user-defined projection is added with ``projector.add(Projection(name, fold))``: it is built
over the history the log already holds and then kept live with the others.
"""

from __future__ import annotations

from typing import Any, Iterable

from projections.analytics import ANALYTICS, AnalyticsView, format_analytics
from projections.artifacts import ARTIFACTS, SESSION_ARTIFACTS, USER_ARTIFACTS
from projections.base import Projection
from projections.state import APP_STATE, SCOPED_STATE, USER_STATE, scoped_view
from runtime.read_models.follower import ProjectionFollower, runner_for
from runtime.stores import Store, open_store


def builtin_projections() -> list[Projection]:
    """The read models Chronicle keeps: scoped state, artifact versions, analytics."""
    return [SCOPED_STATE, ARTIFACTS, ANALYTICS]


class Projector:
    """A store's tracked read models (see the module docstring)."""

    def __init__(self, store: Store | str, projections: Iterable[Projection] = (), *, builtin: bool = True):
        self._owns_store = isinstance(store, str)
        self.store = open_store(store) if isinstance(store, str) else store
        self._runners: dict[str, ProjectionFollower] = {}
        for projection in [*(builtin_projections() if builtin else []), *projections]:
            self.add(projection)

    # -- which projections ---------------------------------------------------------------

    def add(self, projection: Projection, *, catch_up: bool = False) -> ProjectionFollower:
        """Adds a projection; with ``catch_up`` it is built over the existing log at once.

        If the projector is following the log, the new projection follows it too.
        """
        runner = runner_for(self.store, projection)
        self._runners[projection.name] = runner
        if catch_up:
            runner.catch_up()
        if self._following:
            runner.start()
        return runner

    _following = False

    def runner(self, name: str) -> ProjectionFollower:
        try:
            return self._runners[name]
        except KeyError:
            raise KeyError(f"No projection {name!r}; this projector has {sorted(self._runners)}") from None

    @property
    def names(self) -> list[str]:
        return list(self._runners)

    # -- keeping them up to date ---------------------------------------------------------

    def catch_up(self, name: str | None = None) -> dict[str, int]:
        """Folds the events each projection has not seen yet; returns how many, per projection."""
        runners = [self.runner(name)] if name else list(self._runners.values())
        return {r.name: r.catch_up() for r in runners}

    async def catch_up_async(self, name: str | None = None) -> dict[str, int]:
        return await self.store.call(self.catch_up, name)

    def rebuild(self, name: str) -> int:
        """Drops one projection's rows and refolds it from the start of the log."""
        return self.runner(name).rebuild()

    async def rebuild_async(self, name: str) -> int:
        return await self.store.call(self.rebuild, name)

    def status(self) -> list[tuple[str, int, int]]:
        """(name, position, events behind) of every projection."""
        end = next(iter(self._runners.values())).source.max_position() if self._runners else 0
        return [(r.name, p, max(end - p, 0)) for r in self._runners.values() for p in [r.position()]]

    def start(self) -> Projector:
        """Follows the log in background threads (one per projection) until ``stop()``."""
        self._following = True
        for runner in self._runners.values():
            runner.start()
        return self

    def stop(self) -> None:
        self._following = False
        errors = []
        for runner in self._runners.values():
            try:
                runner.stop()
            except Exception as e:  # noqa: BLE001 - stop them all, then report
                errors.append(e)
        if errors:
            raise errors[0]

    def __enter__(self) -> Projector:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def close(self) -> None:
        """Stops following; closes the store if this projector opened it (from a URL)."""
        self.stop()
        if self._owns_store:
            self.store.close()

    # -- queries (as of each projection's position; catch up first for read-your-writes) --

    def view(self, name: str, key: str, fold: str | None = None) -> Any:
        return self.runner(name).view(key, fold)

    def app_state(self, app_name: str) -> dict[str, Any]:
        return self.runner(SCOPED_STATE.name).view(app_name, APP_STATE.name)

    def user_state(self, app_name: str, user_id: str) -> dict[str, Any]:
        return self.runner(SCOPED_STATE.name).view(f"{app_name}/{user_id}", USER_STATE.name)

    def scoped_state(self, app_name: str, user_id: str) -> dict[str, Any]:
        """The app: and user: keys a session of this user sees (as list_sessions merges them)."""
        return scoped_view(self.app_state(app_name), self.user_state(app_name, user_id))

    def artifact_versions(self, app_name: str, user_id: str, session_id: str) -> dict[str, int]:
        """Latest version of each artifact the session sees: its own and its user's."""
        runner = self.runner(ARTIFACTS.name)
        return {
            **runner.view(f"{app_name}/{user_id}/{session_id}", SESSION_ARTIFACTS.name),
            **runner.view(f"{app_name}/{user_id}", USER_ARTIFACTS.name),
        }

    def analytics(self, app_name: str) -> AnalyticsView:
        return self.runner(ANALYTICS.name).view(app_name)

    def analytics_table(self, app_name: str) -> str:
        return format_analytics(app_name, self.analytics(app_name))
