"""VertexAiSessionService at google-adk 2.13's path; refuses when built (runtime.cloud_services)."""

from runtime.cloud_services import CloudOnly
from runtime.sessions.base import BaseSessionService


class VertexAiSessionService(CloudOnly, BaseSessionService):
    service = "Vertex AI Agent Engine"
    instead = ("Keep sessions in Chronicle's log: session_service_from_url('sqlite:///...' or "
               "'postgresql://...'), DatabaseSessionService or InMemorySessionService.")
