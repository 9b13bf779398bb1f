"""The keys that sign checkpoints: HMAC-SHA256 (standard library) or Ed25519 (``cryptography``).

A key is kept outside the database, as one line of text: ``chronicle-seal <kind> <base64>``,
where kind is ``hmac-sha256`` (a 32-byte secret: it seals and verifies), ``ed25519-private``
(seals and verifies) or ``ed25519-public`` (verifies only: an auditor can check checkpoints
without being able to make them). A key's id is a short hash that says which key signed a
checkpoint without revealing it.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets
from dataclasses import dataclass, field
from typing import Optional

from domain.errors import InvalidArgumentError

HMAC_SHA256, ED25519 = "hmac-sha256", "ed25519"
ALGORITHMS = (ED25519, HMAC_SHA256)
_PREFIX = "chronicle-seal"


class SealKeyError(InvalidArgumentError):
    """A seal key that cannot be read, or one that cannot do what was asked (sign with a public key)."""


@dataclass(frozen=True)
class SealKey:
    algorithm: str  # HMAC_SHA256 or ED25519
    # The HMAC secret or the Ed25519 private key's 32 bytes; None for a public key.
    secret: Optional[bytes] = field(repr=False)
    public: Optional[bytes] = None  # the Ed25519 public key's 32 bytes

    @property
    def key_id(self) -> str:
        material = self.public if self.algorithm == ED25519 else self.secret
        return hashlib.sha256(f"{_PREFIX} key id {self.algorithm}\n".encode() + (material or b"")).hexdigest()[:16]

    @property
    def can_sign(self) -> bool:
        return self.secret is not None

    def sign(self, message: bytes) -> str:
        if self.secret is None:
            raise SealKeyError("This is an Ed25519 public key: it verifies checkpoints but cannot seal. "
                               "Seal with the private key file.")
        if self.algorithm == HMAC_SHA256:
            return hmac.new(self.secret, message, hashlib.sha256).hexdigest()
        return _ed25519_private(self.secret).sign(message).hex()

    def verifies(self, message: bytes, signature: str) -> bool:
        try:
            raw = bytes.fromhex(signature)
        except (TypeError, ValueError):
            return False
        if self.algorithm == HMAC_SHA256:
            return hmac.compare_digest(hmac.new(self.secret or b"", message, hashlib.sha256).digest(), raw)
        from cryptography.exceptions import InvalidSignature
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

        try:
            Ed25519PublicKey.from_public_bytes(self.public or b"").verify(raw, message)
            return True
        except (InvalidSignature, ValueError):
            return False

    def text(self) -> str:
        """The key file's line (the secret one, for a key that can sign)."""
        if self.algorithm == HMAC_SHA256:
            return f"{_PREFIX} {HMAC_SHA256} {_b64(self.secret or b'')}\n"
        if self.secret is not None:
            return f"{_PREFIX} {ED25519}-private {_b64(self.secret)}\n"
        return self.public_text()

    def public_text(self) -> str:
        """An Ed25519 key's public half as a key file line (for verifiers)."""
        if self.algorithm != ED25519:
            raise SealKeyError("An HMAC key has no public half: whoever verifies needs the secret itself.")
        return f"{_PREFIX} {ED25519}-public {_b64(self.public or b'')}\n"


def new_key(algorithm: str = ED25519) -> SealKey:
    if algorithm == HMAC_SHA256:
        return SealKey(HMAC_SHA256, secrets.token_bytes(32))
    if algorithm == ED25519:
        return _ed25519_key(secrets.token_bytes(32))
    raise SealKeyError(f"Unknown seal key algorithm {algorithm!r}: use one of {', '.join(ALGORITHMS)}.")


def parse_key(text: str, *, source: str = "the key") -> SealKey:
    """A key from its one line of text (``source`` names where it came from, for the message)."""
    parts = text.strip().split()
    kinds = {HMAC_SHA256: 32, f"{ED25519}-private": 32, f"{ED25519}-public": 32}
    if len(parts) != 3 or parts[0] != _PREFIX or parts[1] not in kinds:
        raise SealKeyError(
            f"{source} is not a Chronicle seal key (expected one line `{_PREFIX} <kind> <base64>`, kind one of "
            f"{', '.join(kinds)}); make one with `chronicle seal --new-key FILE`."
        )
    try:
        raw = base64.b64decode(parts[2], validate=True)
    except (binascii.Error, ValueError):
        raw = b""
    if len(raw) != kinds[parts[1]]:
        raise SealKeyError(f"{source}: the key's bytes are damaged (not {kinds[parts[1]]} bytes of base64).")
    if parts[1] == HMAC_SHA256:
        return SealKey(HMAC_SHA256, raw)
    if parts[1].endswith("-private"):
        return _ed25519_key(raw)
    return SealKey(ED25519, None, raw)


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


def _ed25519_private(secret: bytes):  # type: ignore[no-untyped-def]
    try:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    except ImportError:  # pragma: no cover - a dependency; said plainly if it is missing
        raise SealKeyError("Ed25519 keys need the `cryptography` package; install it, or use an "
                           "hmac-sha256 key.") from None
    return Ed25519PrivateKey.from_private_bytes(secret)


def _ed25519_key(secret: bytes) -> SealKey:
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    public = _ed25519_private(secret).public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    return SealKey(ED25519, secret, public)
