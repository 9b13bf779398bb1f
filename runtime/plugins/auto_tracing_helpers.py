"""AutoTracingPlugin's pieces: rendering values for span attributes (bounded, never raising, secrets
masked) and the wrapper that puts a span around one function of any shape (sync, async,
generator, async generator)."""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import inspect
import logging
import re
from collections.abc import Mapping
from typing import Any, AsyncIterator, Callable, Iterator, Sequence

from opentelemetry import trace as trace_api

logger = logging.getLogger(__name__)

DEFAULT_MAX_REPR_LEN = 4096
DEFAULT_MAX_RECORDED_YIELDS = 16
WRAPPED_ATTR = "_adk_auto_tracing_wrapped"

NamedArg = tuple[str, str]
_SCALARS = (int, float, bool, str, bytes, type(None))
_DEFAULT_REPR = re.compile(r"^<.+ object at 0x[0-9a-fA-F]+>$")
# Types whose repr shows live secrets, matched by name over the MRO (no import of runtime.auth).
_SECRET_TYPES = frozenset({
    "AuthConfig", "AuthCredential", "AuthToolArguments", "Credentials", "HttpAuth", "HttpCredentials",
    "OAuth2Auth", "OAuth2Session", "ServiceAccount", "ServiceAccountCredential",
})
_SECRET_NAMES = frozenset({
    "api_key", "auth_config", "auth_credential", "authorization", "cookie", "cookies", "credential",
    "credentials", "password", "private_key", "secret", "token",
})
_MAX_MASK_DEPTH = 10
_MAX_MASK_NODES = 1024


@dataclasses.dataclass(frozen=True)
class Caps:
    """How long one rendered value may be, and how many generator yields are kept."""

    max_repr_len: int = DEFAULT_MAX_REPR_LEN
    max_recorded_yields: int = DEFAULT_MAX_RECORDED_YIELDS


@functools.lru_cache(maxsize=512)
def is_secret_type(cls: type) -> bool:
    return any(k.__name__ in _SECRET_TYPES for k in cls.__mro__)


@functools.lru_cache(maxsize=1024)
def is_secret_name(name: str) -> bool:
    """A name that conventionally carries a secret (``token``, ``x_api_key``, ``X-Api-Key``...)."""
    lowered = name.lower().replace("-", "_")
    return lowered in _SECRET_NAMES or any(lowered.endswith("_" + n) for n in _SECRET_NAMES)


class StreamResult:
    """What a generator produced: the first few items and how many there were in all."""

    def __init__(self, items: Sequence[Any], caps: Caps, total: int):
        self.items, self.caps, self.total = items, caps, total

    def __repr__(self) -> str:
        if not self.total:
            return "<generator: 0 items yielded>"
        sample = [safe_repr(item, self.caps) for item in self.items]
        more = f" ... + {self.total - len(sample)} more" if self.total > len(sample) else ""
        return f"<generator: {self.total} items yielded; first {len(sample)}: [{', '.join(sample)}]{more}>"


def public_slot_names(cls: type) -> set[str]:
    """Public names in ``__slots__`` over the MRO (``__slots__ = "x"`` is one name, not letters)."""
    names: set[str] = set()
    for klass in cls.__mro__:
        slots = getattr(klass, "__slots__", None)
        if slots is None:
            continue
        for slot in (slots,) if isinstance(slots, str) else slots:
            if slot and not slot.startswith("_"):
                names.add(slot)
    return names


def _plain_repr(value: Any) -> str:
    try:
        return repr(value)
    except Exception as exc:  # a broken __repr__ must not break the traced call
        logger.warning("AutoTracingPlugin: repr() failed for %s: %s", type(value).__name__, exc)
        return f"<unrepr-able {type(value).__name__}>"


def _held_fields(value: Any) -> list[tuple[str, Any]]:
    """An object's own attributes (``__dict__`` and slots), read without firing properties."""
    held = list(vars(value).items()) if isinstance(getattr(value, "__dict__", None), dict) else []
    for slot in sorted(public_slot_names(type(value))):
        try:
            held.append((slot, getattr(value, slot)))
        except AttributeError:
            continue
    return held


def _fields_text(value: Any, shown: list[tuple[str, str]]) -> str:
    body = ", ".join(f"{k}={v}" for k, v in shown)
    return f"<{type(value).__name__} fields={{{body}}}>" if shown else f"<{type(value).__name__}>"


class _Masker:
    """Renders a value with every nested secret masked, or returns None when it holds none (then
    plain repr is used, so ordinary values read as usual). Bounded in depth and nodes; a subtree
    it will not walk is elided, never shown."""

    def __init__(self):
        self.budget = _MAX_MASK_NODES
        self.active: set[int] = set()

    def named(self, name: Any, value: Any, depth: int) -> str | None:
        if isinstance(name, str) and is_secret_name(name):
            return f"<{type(value).__name__}>"
        return self.walk(value, depth)

    def pairs(self, items, depth: int) -> list[tuple[str, str]] | None:
        walked = [(name, value, self.named(name, value, depth)) for name, value in items]
        if all(text is None for *_, text in walked):
            return None
        return [(str(name), text if text is not None else _plain_repr(value)) for name, value, text in walked]

    def walk(self, value: Any, depth: int) -> str | None:
        cls = type(value)
        if cls in _SCALARS or isinstance(value, (type, StreamResult)) or inspect.ismodule(value):
            return None
        if is_secret_type(cls):
            return f"<{cls.__name__}>"
        self.budget -= 1
        if self.budget < 0 or depth >= _MAX_MASK_DEPTH or id(value) in self.active:
            return f"<{cls.__name__} ...>"
        self.active.add(id(value))
        try:
            return self.descend(value, depth + 1)
        finally:
            self.active.discard(id(value))

    def descend(self, value: Any, depth: int) -> str | None:
        cls, name = type(value), type(value).__name__
        own_repr = cls.__repr__ is not object.__repr__
        if own_repr and isinstance(value, tuple) and hasattr(cls, "_fields"):
            parts = self.pairs(zip(cls._fields, value), depth)
            return f"{name}({', '.join(f'{k}={v}' for k, v in parts)})" if parts else None
        if own_repr and isinstance(value, Mapping):
            rows = [(k, self.walk(k, depth), v, self.named(k, v, depth)) for k, v in value.items()]
            if all(kt is None and vt is None for _, kt, _, vt in rows):
                return None
            return "{" + ", ".join(
                f"{kt if kt is not None else _plain_repr(k)}: {vt if vt is not None else _plain_repr(v)}"
                for k, kt, v, vt in rows
            ) + "}"
        if isinstance(value, (list, tuple, set, frozenset)):
            texts = [(item, self.walk(item, depth)) for item in value]
            if all(text is None for _, text in texts):
                return None
            parts = [text if text is not None else _plain_repr(item) for item, text in texts]
            if isinstance(value, list):
                return f"[{', '.join(parts)}]"
            if isinstance(value, tuple):
                return f"({parts[0]},)" if len(parts) == 1 else f"({', '.join(parts)})"
            body = "{" + ", ".join(parts) + "}"
            return body if isinstance(value, set) else f"frozenset({body})"
        if own_repr and dataclasses.is_dataclass(value):
            parts = self.pairs(((f.name, getattr(value, f.name, None)) for f in dataclasses.fields(value)), depth)
            return f"{name}({', '.join(f'{k}={v}' for k, v in parts)})" if parts else None
        if own_repr and isinstance(getattr(cls, "model_fields", None), dict):
            fields = list((getattr(value, "__dict__", None) or {}).items())
            fields += list((getattr(value, "__pydantic_extra__", None) or {}).items())
            parts = self.pairs(fields, depth)
            return f"{name}({', '.join(f'{k}={v}' for k, v in parts)})" if parts else None
        # Private attributes are inspected for secrets but never shown.
        parts = self.pairs(_held_fields(value), depth)
        if parts is None:
            return None
        return _fields_text(value, [(k, v) for k, v in parts if not k.startswith("_")])


def _summary(value: Any) -> str:
    """``<X fields={a=1, b='x'}>`` for an object whose repr is only ``<X object at 0x..>``."""
    shown = [
        (k, f"<{type(v).__name__}>" if is_secret_name(k) or is_secret_type(type(v)) else _plain_repr(v))
        for k, v in _held_fields(value)
        if not k.startswith("_")
    ]
    return _fields_text(value, shown)


def _capped(text: str, max_len: int) -> str:
    return text if len(text) <= max_len else text[:max_len] + f"...[{len(text) - max_len} more chars]"


def safe_repr(value: Any, caps: Caps) -> str:
    """``repr(value)`` that never raises, with secrets masked, default reprs summarised, and capped."""
    if type(value) in _SCALARS:
        return _capped(repr(value), caps.max_repr_len)
    if is_secret_type(type(value)):
        return f"<{type(value).__name__}>"
    try:
        masked = _Masker().walk(value, 0)
    except Exception as exc:  # stopped partway: nothing says the rest is free of secrets
        logger.warning("AutoTracingPlugin: redaction failed for %s: %s", type(value).__name__, exc)
        return f"<{type(value).__name__} ...>"
    text = masked if masked is not None else _plain_repr(value)
    if masked is None and _DEFAULT_REPR.match(text):
        text = _summary(value)
    return _capped(text, caps.max_repr_len)


def positional_param_names(fn: Callable[..., Any]) -> tuple[str, ...]:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return ()
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return tuple(p.name for p in params if p.kind in positional)


def name_value_pairs(
    param_names: Sequence[str], args: tuple[Any, ...], kwargs: dict[str, Any], caps: Caps
) -> list[NamedArg]:
    """``[(name, rendered)]`` of a call's arguments, without self/cls; an argument named as a
    secret is left out altogether."""
    named = [(param_names[i] if i < len(param_names) else f"arg{i}", v) for i, v in enumerate(args)]
    named += list(kwargs.items())
    return [(k, safe_repr(v, caps)) for k, v in named if k not in ("self", "cls") and not is_secret_name(k)]


def record_io_on_span(
    span: trace_api.Span, pairs: Sequence[NamedArg], result: Any, exc: BaseException | None, caps: Caps
) -> None:
    """The call's arguments and its return value (or exception) as ``adk.fn.*`` attributes."""
    for k, v in pairs:
        if not is_secret_name(k):
            span.set_attribute(f"adk.fn.arg.{k}", v)
    if exc is not None:
        span.set_attribute("adk.fn.exc_type", type(exc).__qualname__)
        span.set_attribute("adk.fn.exc_repr", safe_repr(exc, caps))
    else:
        span.set_attribute("adk.fn.return", safe_repr(result, caps))


def display_name_for(fn: Callable[..., Any]) -> str:
    """``Class.method`` or ``function``: the last two parts of the qualified name."""
    return ".".join(fn.__qualname__.split(".")[-2:])


def tracer_will_record(tracer: trace_api.Tracer) -> bool:
    return not isinstance(tracer, trace_api.NoOpTracer)


def build_tracing_wrapper(fn: Callable[..., Any], tracer: trace_api.Tracer, caps: Caps) -> Callable[..., Any]:
    """``fn`` with a span around each call, of the same shape (sync/async/generator)."""
    if not tracer_will_record(tracer):
        return fn
    name = display_name_for(fn)
    param_names = positional_param_names(fn)  # once here: inspect.signature is slow per call

    def finish(span, args, kwargs, result, exc) -> None:
        if span.is_recording():
            record_io_on_span(span, name_value_pairs(param_names, args, kwargs, caps), result, exc, caps)

    class _Sample:
        def __init__(self):
            self.items: list[Any] = []
            self.total = 0

        def add(self, item: Any) -> None:
            self.total += 1
            if len(self.items) < caps.max_recorded_yields:
                self.items.append(item)

        def result(self) -> StreamResult:
            return StreamResult(self.items, caps, self.total)

    @functools.wraps(fn)
    def sync_wrapper(*args, **kwargs):
        with tracer.start_as_current_span(name) as span:
            try:
                result = fn(*args, **kwargs)
            except BaseException as exc:
                finish(span, args, kwargs, None, exc)
                raise
            finish(span, args, kwargs, result, None)
            return result

    @functools.wraps(fn)
    async def async_wrapper(*args, **kwargs):
        with tracer.start_as_current_span(name) as span:
            try:
                result = await fn(*args, **kwargs)
            except BaseException as exc:
                finish(span, args, kwargs, None, exc)
                raise
            finish(span, args, kwargs, result, None)
            return result

    @functools.wraps(fn)
    def gen_wrapper(*args, **kwargs) -> Iterator[Any]:
        with tracer.start_as_current_span(name) as span:
            sample = _Sample()
            try:
                for item in fn(*args, **kwargs):
                    sample.add(item)
                    yield item
            except BaseException as exc:
                finish(span, args, kwargs, sample.result(), exc)
                raise
            finish(span, args, kwargs, sample.result(), None)

    @functools.wraps(fn)
    async def async_gen_wrapper(*args, **kwargs) -> AsyncIterator[Any]:
        with tracer.start_as_current_span(name) as span:
            sample = _Sample()
            try:
                async for item in fn(*args, **kwargs):
                    sample.add(item)
                    yield item
            except BaseException as exc:
                finish(span, args, kwargs, sample.result(), exc)
                raise
            finish(span, args, kwargs, sample.result(), None)

    if inspect.isasyncgenfunction(fn):
        wrapper = async_gen_wrapper
    elif asyncio.iscoroutinefunction(fn):
        wrapper = async_wrapper
    elif inspect.isgeneratorfunction(fn):
        wrapper = gen_wrapper
    else:
        wrapper = sync_wrapper
    setattr(wrapper, WRAPPED_ATTR, True)
    return wrapper
