"""What every command shares: exit codes, opening the store, finding a session, reading times.

Exit codes: 0 done; 1 the command failed (unknown session, bad input — the message says what to
do); 2 bad usage (argparse); 3 the store cannot be opened; 4 ``verify`` found a broken chain.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import difflib
import os
import re
from typing import TYPE_CHECKING, Any, Callable, TypeVar
from urllib.parse import urlsplit, urlunsplit

from domain.errors import StoreError
from runtime.stores import DEFAULT_STORE_URL, check_reachable, open_catalog, open_store
from tools.cli.output import Output

if TYPE_CHECKING:
    from runtime.stores import Catalog, CatalogRow, Store

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_STORE, EXIT_BROKEN = 0, 1, 2, 3, 4

T = TypeVar("T")


class CliError(Exception):
    """A failure to report in one line, with the exit code to leave with."""

    def __init__(self, message: str, code: int = EXIT_ERROR):
        super().__init__(message)
        self.code = code


# -- the store ---------------------------------------------------------------------------


def store_url(args: argparse.Namespace) -> str:
    return getattr(args, "store", None) or os.environ.get("CHRONICLE_STORE") or DEFAULT_STORE_URL


def redact(url: str) -> str:
    """The URL without its password, for messages."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urlunsplit(parts._replace(netloc=netloc))


def sqlite_file(url: str) -> str | None:
    """The file a SQLite store URL names (None for other stores and in-memory SQLite)."""
    if url.startswith("sqlite:///"):
        path = url[len("sqlite:///"):]
    elif "://" not in url and not url.startswith(("memory:", ":memory:")):
        path = url
    else:
        return None
    path = path.split("?", 1)[0]  # an option such as ?mode=ro is not part of the name
    return None if path in ("", ":memory:") else path


def open_store_for(args: argparse.Namespace, *, must_exist: bool = True) -> Store:
    """Opens the store ``--store`` / ``CHRONICLE_STORE`` names, or explains why it cannot."""
    return _opened(args, open_store, must_exist=must_exist)


def open_catalog_for(args: argparse.Namespace) -> Catalog:
    """``open_store_for``, for a command that reads only the session catalog (``runtime.stores.open_catalog``)."""
    return _opened(args, open_catalog, must_exist=True)


def _opened(args: argparse.Namespace, opener: Callable[[str], T], *, must_exist: bool) -> T:
    url = store_url(args)
    if url.startswith("memory:") and must_exist:
        raise CliError(
            "memory:// is empty in every new process, so there is nothing to read. Point --store "
            "(or CHRONICLE_STORE) at sqlite:///path.db or postgresql://user@host:port/db.",
            EXIT_STORE,
        )
    path = sqlite_file(url)
    if path is not None and must_exist and not os.path.exists(path):
        raise CliError(
            f"No store at {path!r}: the file does not exist (store URL {url!r}). Run `chronicle demo` "
            "to make one, or point --store (or CHRONICLE_STORE) at your store.",
            EXIT_STORE,
        )
    _check_reachable(url)
    try:
        return opener(url)
    except StoreError as e:
        cause = e.__cause__ or e
        raise CliError(f"Cannot open the store {redact(url)}: {_one_line(cause)}", EXIT_STORE) from None


def _check_reachable(url: str) -> None:
    """A server that cannot be reached is reported with its real reason (the pool would only say
    it timed out)."""
    try:
        check_reachable(url)
    except StoreError as e:
        if e.__cause__ is None:  # the URL itself is wrong
            raise CliError(str(e), EXIT_STORE) from None
        raise CliError(f"Cannot open the store {redact(url)}: {_one_line(e.__cause__)}", EXIT_STORE) from None


def _one_line(error: BaseException) -> str:
    text = " ".join(str(error).split())
    return text or type(error).__name__


def run_async(coroutine: Any) -> Any:
    """``asyncio.run``, with asyncio imported only by the commands that run a coroutine (start-up time)."""
    import asyncio

    return asyncio.run(coroutine)


# -- sessions ----------------------------------------------------------------------------


def add_session_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("session", metavar="SESSION", help="the session id (see `chronicle sessions`)")
    parser.add_argument("--app", help="the session's app, when the id alone is ambiguous")
    parser.add_argument("--user", help="the session's user, when the id alone is ambiguous")


def find_session(store: Store, session_id: str, app: str | None = None, user: str | None = None) -> CatalogRow:
    """The one session with this id (deleted ones too), or a CliError naming close matches."""
    from runtime.log_reader import LogReader

    reader = LogReader(store)
    if app is not None and user is not None and (row := reader.session(app, user, session_id)) is not None:
        return row  # named in full: read by its key
    found = reader.sessions(app, user, session_id=session_id)  # by the id's index: no catalog scan
    if len(found) == 1:
        return found[0]
    if found:
        names = ", ".join(f"--app {r.app_name} --user {r.user_id}" for r in found[:5])
        raise CliError(f"Session id {session_id!r} is used by {len(found)} sessions; name one with {names}.")
    rows = reader.sessions(app, user)  # not found: the close matches need the catalog
    where = "".join(
        [f" in app {app!r}" if app else "", f" of user {user!r}" if user else ""]
    )
    by_id: dict[str, CatalogRow] = {r.session_id: r for r in rows}
    close = difflib.get_close_matches(session_id, list(by_id), n=3, cutoff=0.5)
    if close:
        hints = ", ".join(f"{c} (app {by_id[c].app_name}, user {by_id[c].user_id})" for c in close)
        raise CliError(f"No session {session_id!r}{where}. Did you mean: {hints}?")
    if not rows:
        raise CliError(f"No session {session_id!r}{where}: the store has no sessions{where}.")
    raise CliError(f"No session {session_id!r}{where}; list them with `chronicle sessions`.")


def expand_invocation(store: Store, row: CatalogRow, text: str | None) -> str | None:
    """A unique prefix of one of the session's invocation ids stands for it (as git's short ids do)."""
    if not text:
        return text
    from runtime.log_reader import LogReader

    known = LogReader(store).invocation_ids(row)
    if text in known:
        return text
    matches = [i for i in known if i.startswith(text)]
    return matches[0] if len(matches) == 1 else text


def session_label(row: CatalogRow) -> str:
    return f"{row.session_id} (app {row.app_name}, user {row.user_id})"


# -- times -------------------------------------------------------------------------------

_RELATIVE = re.compile(r"^(\d+(?:\.\d+)?)\s*(s|m|h|d|w)$")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def parse_when(text: str, *, now: float | None = None) -> float:
    """Seconds since the epoch from ``2025-06-01``, ``2025-06-01T12:30[:00][Z|+02:00]``, an epoch
    number, or a time ago: ``90s``, ``15m``, ``2h``, ``3d``, ``1w``. Times without a zone are UTC."""
    value = text.strip()
    relative = _RELATIVE.match(value)
    if relative:
        now = _dt.datetime.now(_dt.timezone.utc).timestamp() if now is None else now
        return now - float(relative.group(1)) * _UNITS[relative.group(2)]
    try:
        return float(value)
    except ValueError:
        pass
    try:
        parsed = _dt.datetime.fromisoformat(value.replace("Z", "+00:00").replace(" ", "T", 1))
    except ValueError:
        raise CliError(
            f"Cannot read the time {text!r}: use 2025-06-01, 2025-06-01T12:30, an epoch number, "
            "or a time ago such as 15m, 2h, 3d."
        ) from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=_dt.timezone.utc)
    return parsed.timestamp()


def jsonable(value: Any) -> Any:
    """Dataclasses and UUIDs as plain JSON values."""
    import dataclasses
    import uuid

    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, uuid.UUID):
        return str(value)
    return value


def output_for(args: argparse.Namespace) -> Output:
    return Output(json_mode=bool(getattr(args, "json", False)), colour=getattr(args, "color", "auto") or "auto")
