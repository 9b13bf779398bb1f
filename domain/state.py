"""State scopes and the one implementation of the state-delta rules.

A key's prefix names its scope: ``app:`` keys are shared by every session of an app,
``user:`` keys by every session of one user in that app, ``temp:`` keys live only for
the running invocation and are never stored; all other keys belong to the session.
A delta value of ``None`` is stored as ``None`` (it is not a delete) and a dict value
replaces the old value rather than merging into it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator, Mapping, MutableMapping

from domain.errors import InvalidArgumentError
from domain.validation import check_storable


# The user scope's one spelling, for state keys and artifact filenames alike: a key or file
# that starts with it belongs to the user, shared by all of the user's sessions.
USER_PREFIX = "user:"


def is_user_scoped(name: str) -> bool:
    """Whether a state key or an artifact filename belongs to the user, not the session."""
    return name.startswith(USER_PREFIX)


class State(MutableMapping[str, Any]):
    """A session's state: the committed value plus the not-yet-committed delta.

    Reads see the delta first (dirty reads within an invocation); writes go to both,
    so the delta can be attached to the next event the Runner commits.
    """

    APP_PREFIX = "app:"
    USER_PREFIX = USER_PREFIX
    TEMP_PREFIX = "temp:"

    def __init__(self, value: dict[str, Any], delta: dict[str, Any]):
        self._value = value
        self._delta = delta

    def __getitem__(self, key: str) -> Any:
        if key in self._delta:
            return self._delta[key]
        return self._value[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self._value[key] = value
        self._delta[key] = value

    def __delitem__(self, key: str) -> None:
        raise InvalidArgumentError(
            "State keys cannot be deleted; the log is append-only. Set the key to None instead."
        )

    def __iter__(self) -> Iterator[str]:
        return iter({**self._value, **self._delta})

    def __len__(self) -> int:
        return len({**self._value, **self._delta})

    def __contains__(self, key: object) -> bool:
        return key in self._delta or key in self._value

    def get(self, key: str, default: Any = None) -> Any:
        try:
            return self[key]
        except KeyError:
            return default

    def has_delta(self) -> bool:
        return bool(self._delta)

    def to_dict(self) -> dict[str, Any]:
        return {**self._value, **self._delta}

    def __repr__(self) -> str:
        return f"State({self.to_dict()!r})"


@dataclass(init=False)
class ScopedDelta:
    """A delta split by scope. Keys keep their prefixes (as ADK stores them)."""

    app: dict[str, Any]
    user: dict[str, Any]
    session: dict[str, Any]

    def __init__(self, app: dict[str, Any] | None = None, user: dict[str, Any] | None = None,
                 session: dict[str, Any] | None = None):
        # Written out: a dataclass's default factories cost more than the split, made on every append.
        self.app = {} if app is None else app
        self.user = {} if user is None else user
        self.session = {} if session is None else session


def is_temp(key: str) -> bool:
    return key.startswith(State.TEMP_PREFIX)


def without_temp(delta: Mapping[str, Any] | None) -> dict[str, Any]:
    """The part of a delta that may be stored: the delta itself when it has no ``temp:`` key (most
    deltas: not copied on every append), else a copy without them."""
    if type(delta) is dict:
        for key in delta:
            if key.startswith(State.TEMP_PREFIX):  # (is_temp, inline)
                break
        else:
            return delta
    return {k: v for k, v in (delta or {}).items() if not k.startswith(State.TEMP_PREFIX)}


def split_scopes(delta: Mapping[str, Any] | None) -> ScopedDelta:
    scoped = ScopedDelta()
    for key, value in (delta or {}).items():
        if ":" not in key:  # most keys: no prefix at all
            scoped.session[key] = value
        elif key.startswith(State.APP_PREFIX):
            scoped.app[key] = value
        elif is_user_scoped(key):
            scoped.user[key] = value
        elif not is_temp(key):
            scoped.session[key] = value
    return scoped


def session_scoped(delta: Mapping[str, Any] | None) -> Mapping[str, Any]:
    """``split_scopes(delta).session`` without the split where no key has a prefix (most deltas,
    folded on every append): then it is the delta itself."""
    if delta:
        for key in delta:
            if ":" in key:
                return split_scopes(delta).session
        return delta
    return {}


def with_scoped(
    state: Mapping[str, Any] | None, app_state: Mapping[str, Any] | None, user_state: Mapping[str, Any] | None
) -> dict[str, Any]:
    """A session's state as a reader sees it: its own keys, then its app's ``app:`` keys, then its
    user's ``user:`` keys. The one place the scopes are merged back together (the prefixes keep
    the three apart, so the order only says who would win if they ever met)."""
    return {**(state or {}), **(app_state or {}), **(user_state or {})}


def apply_delta(state: dict[str, Any], delta: Mapping[str, Any] | None) -> dict[str, Any]:
    """Fold a delta into a state dict in place: values replace, ``None`` is stored."""
    if delta:
        state.update(delta)
    return state


def check_json_state(delta: Mapping[str, Any] | None, what: str = "state") -> None:
    """Refuse keys and values that cannot be stored as JSON, before anything is written."""
    if delta is None:
        return
    if type(delta) is not dict and not isinstance(delta, Mapping):  # the ABC check is the slow one
        raise InvalidArgumentError(f"{what} must be a dict of JSON values, got {type(delta).__name__}")
    if _plainly_storable(delta):
        return  # the common case, in one walk; anything else is looked at key by key, for its message
    for key, value in delta.items():
        if not isinstance(key, str) or not key:
            raise InvalidArgumentError(f"{what} keys must be non-empty strings, got {key!r}")
        check_storable(key, f"{what} key {key[:40]!r}")
        if is_temp(key):
            continue  # temp: values never leave the process
        check_json_value(value, f"{what}[{key!r}]")


def _plainly_storable(delta: Mapping[str, Any]) -> bool:
    """Whether the whole delta, temp: values included and one level deeper than each value alone,
    passes ``check_storable``: then each key and value passes the checks below too."""
    if type(delta) is not dict or "" in delta:
        return False
    try:
        check_storable(delta, "")
    except InvalidArgumentError:
        return False
    return True


def check_json_value(value: Any, what: str) -> None:
    """Refuse a value that cannot be stored as JSON exactly, the same on every store (objects,
    non-string keys, NaN, and the limits of ``domain.validation.check_storable``)."""
    check_storable(value, what)
