"""ADK's module path for the App's configuration models (google.adk.apps._configs)."""

from runtime.app import ResumabilityConfig
from runtime.compaction import EventsCompactionConfig

__all__ = ["EventsCompactionConfig", "ResumabilityConfig"]
