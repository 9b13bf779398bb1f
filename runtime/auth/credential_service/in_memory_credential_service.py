"""ADK's module path for InMemoryCredentialService (its home is runtime.auth.credential_service)."""

from runtime.auth.credential_service import InMemoryCredentialService

__all__ = ["InMemoryCredentialService"]
