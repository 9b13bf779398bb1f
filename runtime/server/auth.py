"""Who is calling, and whose data they may reach.

Authentication is pluggable: an `Authenticator` turns a request's headers into a `Caller` (or
refuses it). The built-in one is `BearerTokens`: `Authorization: Bearer TOKEN`, where each
token maps to the user ids it acts for, or to "*" for an operator (every user, and the
store-wide routes: verify, analytics, pending across users). Tokens come from a JSON file or
an environment variable holding the same JSON:

    {"tok-ann": "ann", "tok-team": ["bob", "carol"], "tok-ops": "*"}

With no authentication every caller is an operator, which is why the server then binds loopback
only unless told otherwise (see `chronicle serve --allow-public-without-auth`).
"""

from __future__ import annotations

import hmac
import importlib
import json
import os
from dataclasses import dataclass
from typing import Mapping, Optional, Protocol

from domain.errors import ChronicleError, InvalidArgumentError


class Unauthenticated(ChronicleError):
    """The request carries no valid credentials (401)."""


class Forbidden(ChronicleError):
    """The caller may not reach this data (403)."""


@dataclass(frozen=True)
class Caller:
    name: str
    users: frozenset[str] = frozenset()
    operator: bool = False

    def check_user(self, user_id: str) -> None:
        if not (self.operator or user_id in self.users):
            raise Forbidden(f"This token may not act for user {user_id!r}.")

    def check_operator(self, what: str) -> None:
        if not self.operator:
            raise Forbidden(f"{what} reaches every user's data: it needs an operator token.")


ANYONE = Caller(name="anonymous", operator=True)


class Authenticator(Protocol):
    def authenticate(self, headers: Mapping[str, str]) -> Caller: ...


class NoAuth:
    """Every caller is an operator: for a server that only loopback clients can reach."""

    enabled = False

    def authenticate(self, headers: Mapping[str, str]) -> Caller:
        return ANYONE


class BearerTokens:
    enabled = True

    def __init__(self, tokens: Mapping[str, object]):
        self._callers: dict[str, Caller] = {}
        for i, (token, users) in enumerate(tokens.items()):
            if not isinstance(token, str) or len(token) < 8:
                raise InvalidArgumentError(f"Token #{i + 1} is shorter than 8 characters; use long random tokens.")
            if users == "*":
                self._callers[token] = Caller(name=f"token #{i + 1}", operator=True)
                continue
            names = [users] if isinstance(users, str) else users
            if not isinstance(names, list) or not names or not all(isinstance(u, str) and u for u in names):
                raise InvalidArgumentError(f"Token #{i + 1} must map to a user id, a list of user ids, or \"*\".")
            self._callers[token] = Caller(name=f"token #{i + 1}", users=frozenset(names))

    def authenticate(self, headers: Mapping[str, str]) -> Caller:
        scheme, _, token = (headers.get("authorization") or "").partition(" ")
        if scheme.lower() != "bearer" or not token:
            raise Unauthenticated("Send `Authorization: Bearer <token>`.")
        for known, caller in self._callers.items():
            if hmac.compare_digest(known.encode(), token.strip().encode()):
                return caller
        raise Unauthenticated("Unknown token.")


def authenticator_for(tokens_file: Optional[str], tokens_env: str, dotted: Optional[str]) -> Authenticator:
    """The configured authenticator: a class by dotted name, else tokens from the file or the
    environment, else none."""
    if dotted:
        module_name, _, name = dotted.rpartition(".")
        return getattr(importlib.import_module(module_name), name)()
    raw: Optional[str] = None
    if tokens_file:
        with open(tokens_file, encoding="utf-8") as f:
            raw = f.read()
    elif os.environ.get(tokens_env):
        raw = os.environ[tokens_env]
    if raw is None:
        return NoAuth()
    try:
        tokens = json.loads(raw)
    except json.JSONDecodeError as e:
        raise InvalidArgumentError(f"The tokens ({tokens_file or '$' + tokens_env}) are not JSON: {e}") from None
    if not isinstance(tokens, dict) or not tokens:
        raise InvalidArgumentError('The tokens must be a JSON object such as {"TOKEN": "user_id", "OPERATOR_TOKEN": "*"}.')
    return BearerTokens(tokens)
