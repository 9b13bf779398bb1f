"""`import google.adk...` in an agent folder, answered by Chronicle's modules when google-adk is absent.

An app written for `adk api_server` keeps its imports (`from google.adk.agents.callback_context
import CallbackContext` in a callbacks.py or tools.py). Chronicle has ADK's module paths under
`runtime` (runtime.agents.callback_context, runtime.tools.tool_context, ...), so `google.adk.X`
is served by `runtime.X`: the same objects, so isinstance checks and the runtime agree.

The finder is installed only when google-adk cannot be imported: a real google-adk is never
shadowed (an app then gets ADK's own classes, as it asked). The server's app loader installs it.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types
from typing import Any, Optional, Sequence

_PREFIX = "google.adk"
_TARGET = "runtime"


def install_if_missing() -> bool:
    """Installs the finder unless google-adk is importable (or it is already installed)."""
    if any(isinstance(f, _AdkFinder) for f in sys.meta_path):
        return True
    try:
        if importlib.util.find_spec(_PREFIX) is not None:
            return False
    except (ImportError, ValueError):
        pass
    sys.meta_path.append(_AdkFinder())
    return True


def chronicle_name(fullname: str) -> Optional[str]:
    """The Chronicle module that answers a google.adk module name, or None if it is not one."""
    if fullname != _PREFIX and not fullname.startswith(_PREFIX + "."):
        return None
    return _TARGET + fullname[len(_PREFIX):]


class _AdkFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname: str, path: Optional[Sequence[str]] = None, target: Any = None) -> Any:
        name = chronicle_name(fullname)
        if name is None:
            return None
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            return None
        if spec is None:
            return None
        return importlib.machinery.ModuleSpec(
            fullname, _AliasLoader(name), is_package=spec.submodule_search_locations is not None
        )


class _AliasLoader(importlib.abc.Loader):
    """A google.adk.* module whose names are those of the Chronicle module (the same objects)."""

    def __init__(self, target: str):
        self.target = target

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        return types.ModuleType(spec.name)

    def exec_module(self, module: types.ModuleType) -> None:
        real = importlib.import_module(self.target)
        for key, value in vars(real).items():
            if not (key.startswith("__") and key.endswith("__")) or key in ("__all__", "__doc__"):
                module.__dict__[key] = value
        module.__dict__["__getattr__"] = lambda name: getattr(real, name)  # lazy names (PEP 562)
        if hasattr(real, "__path__"):
            module.__path__ = []  # a package: its submodules come through the finder too
