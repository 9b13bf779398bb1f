"""The bridge's tests run where google-adk 2.13 is installed (CI's second environment)."""

import pytest

pytest.importorskip("google.adk", reason="the bridge's tests need google-adk (pip install -e '.[adk,dev]')")
