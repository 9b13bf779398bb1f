"""Chronicle's log under stock google-adk: drop-in session, artifact and memory services.

Teams that keep google-adk as their runtime pass these to ADK's own ``Runner`` (or register the
``chronicle+sqlite://``, ``chronicle+postgresql://`` and ``chronicle+memory://`` URIs for
``adk web`` and ``adk api_server`` with ``register_with_adk()``); every Chronicle tool then works
on what ADK writes. See docs/adk-bridge.md.

Needs google-adk: ``pip install 'chronicle[adk]'``. Nothing else in Chronicle imports it.
"""

try:
    import google.adk  # noqa: F401
except ImportError as e:  # pragma: no cover - exercised by tests/test_adk_bridge_import.py in the main env
    raise ImportError(
        "runtime.adk_bridge runs Chronicle's services under stock google-adk, which is not installed here. "
        "Install the extra: pip install 'chronicle[adk]' (google-adk 2.13; it needs google-genai below 3, "
        "so give it an environment of its own)."
    ) from e

from runtime.adk_bridge.artifacts import ChronicleArtifactService
from runtime.adk_bridge.errors import AlreadyExistsError, SessionNotFoundError, StaleSessionError
from runtime.adk_bridge.memory import ChronicleMemoryService
from runtime.adk_bridge.registry import SCHEMES, register_with_adk, store_url
from runtime.adk_bridge.sessions import ChronicleSessionService

__all__ = [
    "AlreadyExistsError",
    "ChronicleArtifactService",
    "ChronicleMemoryService",
    "ChronicleSessionService",
    "SCHEMES",
    "SessionNotFoundError",
    "StaleSessionError",
    "register_with_adk",
    "store_url",
]
