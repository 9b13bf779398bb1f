"""What an agent node sees of the session: its own events, after its input (google-adk 2.13's
single-turn agents), while state, ids and everything else are the session's own."""

from __future__ import annotations

from typing import Any, Optional

from domain.events import Event


class NodeSessionView:
    """The session as seen from the node run at `path`: `events` are `first` (its input as the
    user's turn) and the session's events of that run and of the runs inside it in this invocation
    (a path repeats in the next one), read afresh on
    each access (the Runner commits to the session itself); every other attribute is the session's."""

    def __init__(self, session: Any, path: str, first: Optional[Event], invocation_id: str) -> None:
        object.__setattr__(self, "_session", session)
        object.__setattr__(self, "_invocation", invocation_id)
        object.__setattr__(self, "_path", path)
        object.__setattr__(self, "_first", [first] if first is not None else [])

    @property
    def events(self) -> list[Event]:
        path, inside = self._path, self._path + "/"
        own = [
            e for e in self._session.events
            if e.invocation_id == self._invocation and (e.node_info.path == path or e.node_info.path.startswith(inside))
        ]
        return self._first + own

    def __getattr__(self, name: str) -> Any:
        return getattr(self._session, name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._session, name, value)
