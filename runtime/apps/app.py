"""ADK's module path for App (google.adk.apps.app)."""

from runtime.app import App, ResumabilityConfig
from runtime.compaction import EventsCompactionConfig

__all__ = ["App", "EventsCompactionConfig", "ResumabilityConfig"]
