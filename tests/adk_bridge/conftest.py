"""The bridge's tests run where google-adk 2.13 is installed: CI's second environment
(`.venv-adk/bin/python -m pytest tests/adk_bridge`). The main environment's run does not collect
them (tests/conftest.py); asked for them explicitly there, they fail rather than skip."""

import importlib.util

if importlib.util.find_spec("google.adk") is None:
    raise ImportError(
        "tests/adk_bridge needs google-adk: run it in the google-adk environment "
        "(pip install -e '.[adk,dev]'; .venv-adk/bin/python -m pytest tests/adk_bridge)"
    )
