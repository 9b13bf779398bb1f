"""ADK's module path for RunConfig."""

from runtime.run_config import RunConfig, StreamingMode, ToolThreadPoolConfig

__all__ = ["RunConfig", "StreamingMode", "ToolThreadPoolConfig"]
