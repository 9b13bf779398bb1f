"""ADK's module path for BaseEventsSummarizer."""

from runtime.compaction import BaseEventsSummarizer

__all__ = ["BaseEventsSummarizer"]
