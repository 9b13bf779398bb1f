"""ADK's module path for Session."""

from domain.session import Session

__all__ = ["Session"]
