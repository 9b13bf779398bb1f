"""Checks on identifiers, run before anything is written."""

from __future__ import annotations

import re

from domain.errors import InvalidArgumentError

APP_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]{0,127}$")
# User and session ids come from other systems (emails, uuids, …): allow their usual
# characters but nothing that could be a path, a control character or surrounding space.
EXTERNAL_ID = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.:@+=-]{0,255}$")
# User ids may also name a group, "group/user123", as ADK allows: parts of that form joined by
# "/", so no part is empty, "." or "..". No id ever becomes a file path (artifact files are
# named by their hash); this keeps even a careless future path join inside its directory.


def check_app_name(app_name: object) -> str:
    if not isinstance(app_name, str) or not APP_NAME.match(app_name):
        raise InvalidArgumentError(
            f"Invalid app name {app_name!r}: use a letter followed by letters, digits, '_', '.' "
            "or '-' (at most 128 characters)."
        )
    return app_name


def check_external_id(kind: str, value: object) -> str:
    if not isinstance(value, str) or not EXTERNAL_ID.match(value):
        raise InvalidArgumentError(
            f"Invalid {kind} {value!r}: use letters, digits and '_ . : @ + = -' "
            "(not starting with a symbol other than '_', at most 256 characters)."
        )
    return value


def check_user_id(value: object) -> str:
    parts = value.split("/") if isinstance(value, str) and len(value) <= 256 else [None]
    if not all(isinstance(p, str) and EXTERNAL_ID.match(p) for p in parts):
        raise InvalidArgumentError(
            f"Invalid user id {value!r}: use letters, digits and '_ . : @ + = -', parts joined by '/' "
            "(each starting with a letter, digit or '_'), at most 256 characters."
        )
    return value


def check_ids(app_name: object, user_id: object, session_id: object | None = None) -> None:
    check_app_name(app_name)
    check_user_id(user_id)
    if session_id is not None:
        check_external_id("session id", session_id)
