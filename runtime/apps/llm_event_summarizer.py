"""ADK's module path for LlmEventSummarizer."""

from runtime.compaction import LlmEventSummarizer

__all__ = ["LlmEventSummarizer"]
