"""Sending folded spans (``runtime.telemetry.after``) to any OpenTelemetry backend over OTLP/HTTP.

Through the SDK's own OTLP/HTTP exporter (protobuf), from the optional extra ``chronicle[otel]``:
its encoding, compression and retries are the ones every collector is tested against, and a
user who exports traces has the SDK already. The core install needs only ``opentelemetry-api``.
"""

from __future__ import annotations

from typing import Any, Sequence
from urllib.parse import urlsplit

from domain.errors import ChronicleError, InvalidArgumentError
from runtime.telemetry.after import TraceSpan
from runtime.telemetry.live import TRACER_NAME

TRACES_PATH = "/v1/traces"


class TraceExportError(ChronicleError):
    """The OTLP receiver did not take the spans."""


def traces_endpoint(url: str) -> str:
    """The URL to post to: a collector's base address (``http://host:4318``) gets OTLP's
    ``/v1/traces``; a URL with a path is used as given."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise InvalidArgumentError(f"--otlp needs an http(s) URL such as http://localhost:4318, got {url!r}.")
    return url.rstrip("/") + TRACES_PATH if parts.path in ("", "/") else url


def export_spans(spans: Sequence[TraceSpan], url: str, *, service_name: str = "chronicle", timeout: float = 10.0) -> None:
    """Posts ``spans`` to the OTLP/HTTP receiver at ``url``; TraceExportError if it refuses them."""
    endpoint = traces_endpoint(url)
    try:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.trace.export import SpanExportResult
    except ImportError as exc:
        raise InvalidArgumentError(
            "Exporting over OTLP needs the OpenTelemetry SDK and its OTLP/HTTP exporter: "
            "pip install 'chronicle[otel]'."
        ) from exc
    if not spans:
        return
    exporter = OTLPSpanExporter(endpoint=endpoint, timeout=timeout)
    try:
        result = exporter.export([_readable(span, service_name) for span in spans])
    finally:
        exporter.shutdown()
    if result != SpanExportResult.SUCCESS:
        raise TraceExportError(f"The OTLP receiver at {endpoint} did not accept the {len(spans)} spans; see the log above.")


def _readable(span: TraceSpan, service_name: str) -> Any:
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import ReadableSpan
    from opentelemetry.sdk.util.instrumentation import InstrumentationScope
    from opentelemetry.trace import SpanContext, SpanKind, Status, StatusCode, TraceFlags

    def context(span_id: str) -> SpanContext:
        return SpanContext(int(span.trace_id, 16), int(span_id, 16), is_remote=False, trace_flags=TraceFlags(TraceFlags.SAMPLED))

    return ReadableSpan(
        name=span.name,
        context=context(span.span_id),
        parent=context(span.parent_span_id) if span.parent_span_id else None,
        resource=Resource.create({"service.name": service_name}),
        attributes=span.attributes,
        kind=SpanKind.INTERNAL,
        status=Status(StatusCode.ERROR) if span.error else Status(StatusCode.UNSET),
        start_time=span.start_time_unix_nano,
        end_time=span.end_time_unix_nano,
        instrumentation_scope=InstrumentationScope(TRACER_NAME),
    )
