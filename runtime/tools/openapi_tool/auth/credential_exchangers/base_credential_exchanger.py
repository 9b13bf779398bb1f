"""The interface of a credential exchanger: a configured credential in, a ready one out."""

from __future__ import annotations

import abc
from typing import Any, Optional

from runtime.auth.auth_credential import AuthCredential


class AuthCredentialMissingError(Exception):
    """The credential needed to authenticate is missing or cannot be exchanged."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class BaseAuthCredentialExchanger:
    @abc.abstractmethod
    def exchange_credential(self, auth_scheme: Any, auth_credential: Optional[AuthCredential] = None
                            ) -> Optional[AuthCredential]:
        """The credential a request can carry (a bearer token, say), the given one when it already
        can, or None when it cannot be made ready yet (the user must authorize first)."""
        raise NotImplementedError("Subclasses must implement exchange_credential.")
