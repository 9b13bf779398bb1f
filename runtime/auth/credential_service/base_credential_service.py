"""ADK's module path for BaseCredentialService (its home is runtime.auth.credential_service)."""

from runtime.auth.credential_service import BaseCredentialService

__all__ = ["BaseCredentialService"]
