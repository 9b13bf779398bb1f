"""ADK's module path for the runners (google.adk.runners)."""

from runtime.runner import InMemoryRunner, Runner

__all__ = ["InMemoryRunner", "Runner"]
