"""Traces in OpenTelemetry's GenAI conventions: live spans as agents run (``live``), and the same
spans folded from any session's log after the fact (``after``); names and attributes in
``semconv``. See docs/traces.md."""

from runtime.telemetry.semconv import model_operation

__all__ = ["model_operation"]
