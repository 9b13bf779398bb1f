"""ContextCacheConfig at google-adk 2.13's path (`agents.context_cache_config`).

An App (and so its Runner, as `runner.context_cache_config`) takes it, checked as ADK checks it.
Chronicle does not create Gemini cached contents from it: explicit caching is a cost saving on
Google's side that changes neither a request's contents nor the events, so every request is sent
whole (docs/adk.md)."""

from __future__ import annotations

from typing import Optional

from google.genai import types
from pydantic import BaseModel, ConfigDict, Field


class ContextCacheConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    # The descriptions are part of the schema ADK's tools and docs read.
    cache_intervals: int = Field(default=10, ge=1, le=100, description=(
        "Maximum number of invocations that may reuse one cache before it is refreshed."))
    ttl_seconds: int = Field(default=1800, gt=0, description="Time-to-live for cache entries, in seconds.")
    min_tokens: int = Field(default=0, ge=0, description=(
        "Minimum prior-request tokens (the previous request's prompt) below which nothing is cached."))
    create_http_options: Optional[types.HttpOptions] = None
    """HTTP options for the cache-creation call."""

    @property
    def ttl_string(self) -> str:
        """The TTL as Gemini's cache API writes it ("1800s")."""
        return f"{self.ttl_seconds}s"

    def __str__(self) -> str:  # ADK's form, which its logs and tests show
        return (f"ContextCacheConfig(cache_intervals={self.cache_intervals}, ttl={self.ttl_string}, "
                f"min_tokens={self.min_tokens}, create_http_options={self.create_http_options})")


__all__ = ["ContextCacheConfig"]
