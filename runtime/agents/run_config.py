"""ADK's module path for RunConfig."""

from runtime.run_config import RunConfig, StreamingMode

__all__ = ["RunConfig", "StreamingMode"]
