"""The optional model extras (litellm, anthropic): their tests skip when the package is absent,
unless CHRONICLE_REQUIRE_MODEL_EXTRAS=1 (CI sets it) makes that a failure."""

from __future__ import annotations

import importlib
import os
from typing import Any

import pytest


def require_extra(package: str) -> Any:
    if os.environ.get("CHRONICLE_REQUIRE_MODEL_EXTRAS") == "1":
        return importlib.import_module(package)
    return pytest.importorskip(package, reason=f"the {package} extra is not installed")
