"""ADK's module path for App (google.adk.apps.app)."""

from runtime.app import App, ResumabilityConfig, validate_app_name
from runtime.compaction import EventsCompactionConfig

__all__ = ["App", "EventsCompactionConfig", "ResumabilityConfig", "validate_app_name"]
