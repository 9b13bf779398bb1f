"""ADK's module path for App and its configuration (google.adk.apps)."""

from runtime.app import App, ResumabilityConfig

__all__ = ["App", "ResumabilityConfig"]
