"""AutoTracingPlugin: before each run, wraps the public functions and methods of the app's own
modules so that every call becomes an OpenTelemetry span with its arguments and result.

In scope are the modules under ``extra_scope_prefixes`` and the packages of every object
reachable from the invocation's agent (its tools, callbacks, sub-agents...). Each module is
wrapped once; a function already wrapped is left as it is."""

from __future__ import annotations

import inspect
import logging
import sys
import threading
from types import ModuleType
from typing import TYPE_CHECKING, Any, Callable

from opentelemetry import trace

from runtime.plugins import auto_tracing_helpers
from runtime.plugins.base_plugin import BasePlugin

if TYPE_CHECKING:
    from runtime.invocation_context import InvocationContext

logger = logging.getLogger(__name__)

DEFAULT_MAX_WALK_DEPTH = 30
# Chronicle's own packages are never wrapped, though an agent reaches them (its class, its tools):
# it would trace the framework rather than the app, and swap Chronicle's functions process-wide.
FRAMEWORK = ("runtime", "domain", "projections")
_ATOMS = (str, bytes, int, float, bool, type(None))


class AutoTracingPlugin(BasePlugin):
    def __init__(
        self,
        *,
        name: str = "AutoTracingPlugin",
        extra_scope_prefixes: tuple[str, ...] = (),
        tracer: trace.Tracer | None = None,
        max_repr_len: int = auto_tracing_helpers.DEFAULT_MAX_REPR_LEN,
        max_recorded_yields: int = auto_tracing_helpers.DEFAULT_MAX_RECORDED_YIELDS,
        max_walk_depth: int = DEFAULT_MAX_WALK_DEPTH,
    ):
        super().__init__(name=name)
        self._scope_prefixes = tuple(extra_scope_prefixes)
        self._tracer = tracer or trace.get_tracer(__name__)
        self._caps = auto_tracing_helpers.Caps(max_repr_len=max_repr_len, max_recorded_yields=max_recorded_yields)
        self._max_walk_depth = max_walk_depth
        self._tracer_eligible = auto_tracing_helpers.tracer_will_record(self._tracer)
        self._lock = threading.Lock()
        self._wrapped_modules: set[str] = set()

    async def before_run_callback(self, *, invocation_context: InvocationContext) -> None:
        if not self._tracer_eligible:
            return None
        with self._lock:
            self._add_agent_scope(invocation_context)
            for name in list(sys.modules):
                if name in self._wrapped_modules or name == __name__ or not name.startswith(self._scope_prefixes):
                    continue
                module = sys.modules.get(name)
                if module is None:  # unloaded since the list was taken
                    continue
                try:
                    self._wrap_module(module)
                except Exception:  # one odd module must not stop the run
                    logger.exception("AutoTracingPlugin: failed to instrument %s", name)
                self._wrapped_modules.add(name)
        return None

    def _add_agent_scope(self, invocation_context: Any) -> None:
        """Adds the package of every object reachable from the agent through public attributes."""
        seen: set[int] = set()
        packages: set[str] = set()

        def walk(obj: object, depth: int) -> None:
            if obj is None or isinstance(obj, _ATOMS) or depth > self._max_walk_depth or id(obj) in seen:
                return
            seen.add(id(obj))
            module = getattr(obj, "__module__", None) or getattr(getattr(obj, "func", None), "__module__", None)
            if module and module.split(".", 1)[0] not in FRAMEWORK:
                if "." in module:
                    packages.add(module.rsplit(".", 1)[0] + ".")
                else:  # a top-level module matches itself and its submodules
                    packages.update((module, module + "."))
            if isinstance(obj, (list, tuple, set, frozenset)):
                children = list(obj)
            elif isinstance(obj, dict):
                children = list(obj.values())
            else:
                # The instance dict, not getattr, so properties and lazy descriptors never fire.
                own = getattr(obj, "__dict__", None)
                children = [v for k, v in own.items() if not k.startswith("_")] if isinstance(own, dict) else []
                for slot in auto_tracing_helpers.public_slot_names(type(obj)):
                    try:
                        children.append(getattr(obj, slot))
                    except AttributeError:
                        continue
            for child in children:
                walk(child, depth + 1)

        walk(getattr(invocation_context, "agent", None), 0)
        new = tuple(sorted(packages - set(self._scope_prefixes)))
        self._scope_prefixes += new

    def _wrap_module(self, module: ModuleType) -> None:
        """Wraps the module's own public functions and its classes' own methods."""
        own = module.__name__
        for attr_name, attr in inspect.getmembers(module):
            if attr_name.startswith("_") or getattr(attr, "__module__", "") != own:
                continue
            if inspect.isfunction(attr):
                self._rebind(module, attr_name, attr)
            elif inspect.isclass(attr):
                for member_name, member in inspect.getmembers(attr, inspect.isfunction):
                    if not member_name.startswith("__") and getattr(member, "__module__", "") == own:
                        self._rebind(attr, member_name, member)

    def _rebind(self, owner: ModuleType | type, name: str, fn: Callable[..., Any]) -> None:
        if getattr(fn, auto_tracing_helpers.WRAPPED_ATTR, False):
            return
        try:
            wrapper = auto_tracing_helpers.build_tracing_wrapper(fn, self._tracer, self._caps)
            # getmembers unwraps a staticmethod; put back as a plain function it would get self.
            if isinstance(owner, type) and isinstance(inspect.getattr_static(owner, name, None), staticmethod):
                wrapper = staticmethod(wrapper)
            setattr(owner, name, wrapper)
        except (AttributeError, TypeError) as exc:
            logger.info("AutoTracingPlugin: cannot rebind %s.%s: %s", getattr(owner, "__qualname__", owner), name, exc)
