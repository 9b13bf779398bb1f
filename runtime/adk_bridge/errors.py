"""Errors that are both Chronicle's and google-adk's, so code written for either catches them."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from google.adk.errors.already_exists_error import AlreadyExistsError as _AdkAlreadyExists
from google.adk.errors import StaleSessionError as _AdkStale
from google.adk.errors.session_not_found_error import SessionNotFoundError as _AdkNotFound

from domain import errors


class StaleSessionError(errors.StaleSessionError, _AdkStale):
    """A writer's session is behind the log (another writer appended first); nothing was
    written. ADK's type, so ADK's Runner handles it as it handles its own services' error."""


class SessionNotFoundError(errors.SessionNotFoundError, _AdkNotFound):
    """The session does not exist (or was deleted)."""


class AlreadyExistsError(errors.AlreadyExistsError, _AdkAlreadyExists):
    """A session with this id exists (its log is kept even after deletion)."""


@contextmanager
def as_adk_errors() -> Iterator[None]:
    """Raise Chronicle's errors as the types above, which ADK's code also catches."""
    try:
        yield
    except errors.StaleSessionError as e:
        if isinstance(e, StaleSessionError):
            raise
        raise StaleSessionError(e.session_id, e.expected_version, e.actual_version) from None
    except errors.SessionNotFoundError as e:
        if isinstance(e, SessionNotFoundError):
            raise
        raise SessionNotFoundError(e.app_name, e.user_id, e.session_id) from None
    except errors.AlreadyExistsError as e:
        if isinstance(e, AlreadyExistsError):
            raise
        raise AlreadyExistsError(str(e)) from None
