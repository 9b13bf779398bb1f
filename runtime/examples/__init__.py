"""Few-shot examples for ExampleTool (ADK's google.adk.examples)."""

from runtime.examples.base_example_provider import BaseExampleProvider
from runtime.examples.example import Example

__all__ = ["BaseExampleProvider", "Example"]
