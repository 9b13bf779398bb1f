"""ADK's module path for ReadonlyContext."""

from runtime.contexts import ReadonlyContext

__all__ = ["ReadonlyContext"]
