"""GcsArtifactService at google-adk 2.13's path; refuses when built (runtime.cloud_services)."""

from runtime.artifacts.base import BaseArtifactService
from runtime.cloud_services import CloudOnly


class GcsArtifactService(CloudOnly, BaseArtifactService):
    service = "Google Cloud Storage"
    instead = ("Keep files in Chronicle's store: artifact_service_from_url(...) with the session store's "
               "URL, or FileArtifactService / InMemoryArtifactService.")
