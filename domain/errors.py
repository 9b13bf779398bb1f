"""The typed errors Chronicle raises. Each message says what to do next."""

from __future__ import annotations


class ChronicleError(Exception):
    """Base class of every error Chronicle raises on purpose."""


class InputValidationError(ChronicleError, ValueError):
    """Bad input, refused before anything was written.

    google-adk names this class ``InputValidationError`` (``google.adk.errors.input_validation_error``,
    a ``ValueError``); Chronicle's ``InvalidArgumentError`` is the same class under its older name, so
    an ``except`` written for either catches both, and an error event names it as ADK does."""

    def __init__(self, message: str = "Invalid input.", *args: object):
        self.message = message
        super().__init__(message, *args)


InvalidArgumentError = InputValidationError


class SessionNotFoundError(ChronicleError, KeyError):
    def __init__(self, app_name: str, user_id: str, session_id: str, hint: str = ""):
        self.app_name, self.user_id, self.session_id = app_name, user_id, session_id
        message = (  # google-adk 2.13's sentence first (code matches on it), then what to do
            f"Session {session_id} not found. Session {session_id!r} of user {user_id!r} in app {app_name!r}"
            " does not exist (or was deleted). Create it with create_session() first"
        )
        super().__init__(message + (f"; {hint}" if hint else "."))

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


class AlreadyExistsError(ChronicleError):
    pass


class StaleSessionError(ChronicleError, ValueError):
    """The caller's session object is behind the stored session. A ValueError opening with ADK's
    text, as google-adk 2.13's, so code that catches or matches ADK's error keeps working."""

    def __init__(self, session_id: str, expected_version: int, actual_version: int):
        self.session_id = session_id
        self.expected_version = expected_version
        self.actual_version = actual_version
        super().__init__(
            "The session has been modified in storage since it was loaded. "
            f"Session {session_id!r}: this writer expected "
            f"version {expected_version} but the stored session is at version {actual_version}. "
            "Nothing was written; reload it with get_session() and retry."
        )


class InvocationNotFoundError(ChronicleError, KeyError, ValueError):
    """A KeyError, and a ValueError as google-adk's InvocationNotFoundError is."""

    def __init__(self, session_id: str, invocation_id: str):
        self.session_id, self.invocation_id = session_id, invocation_id
        super().__init__(
            f"Session {session_id!r} has no invocation {invocation_id!r}; "
            "list its invocations with `chronicle history`."
        )

    def __str__(self) -> str:
        return str(self.args[0])


class InvalidAnswerError(InvalidArgumentError):
    """An answer to a request the invocation paused on (a confirmation, a credential, an input)
    that names no open request, answers one twice, or has the wrong shape. Nothing was written."""


class LlmCallsLimitExceededError(ChronicleError):
    pass


class StoreError(ChronicleError):
    """A store URL that cannot be opened, or a store that misbehaves."""


class StoreUnavailableError(StoreError):
    """The store could not be reached, or the connection broke while a call was in flight."""

    def __init__(self, detail: str):
        super().__init__(
            f"The store is unavailable ({detail}). If a write was in flight, whether it landed is "
            "unknown: retry it with the same event id, which is safe (an event id already stored "
            "returns the stored event, never a second copy)."
        )


class StoreFullError(StoreError):
    """The store has no room left (disk full, a size limit reached); nothing was written."""

    def __init__(self, detail: str):
        super().__init__(
            f"The store is full ({detail}). Nothing was written; free space (or raise the store's "
            "size limit) and retry."
        )


class StoreCorruptError(StoreError):
    """The database's own files are damaged (a page that is not what the database wrote)."""

    def __init__(self, detail: str):
        super().__init__(
            f"The store's database is damaged ({detail}). Run `chronicle verify` to see where, and "
            "restore the database from a backup."
        )


class ReadOnlyStoreError(StoreError):
    """A write to a store opened read-only (a read-only file, mount or database role)."""

    def __init__(self, detail: str):
        super().__init__(
            f"The store is read-only ({detail}). Nothing was written; reads and audits (verify, "
            "history, sessions, export) still work. Open a writable copy to change it."
        )
