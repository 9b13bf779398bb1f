"""google-adk's BaseArtifactService over Chronicle's artifact logs (``LogArtifactService``)."""

from __future__ import annotations

from typing import Any, Optional, Union

from google.adk.artifacts import artifact_util
from google.adk.artifacts.base_artifact_service import ArtifactVersion, BaseArtifactService
from google.genai import types

from runtime.artifacts.service import LogArtifactService
from runtime.stores import Store, open_store


class ChronicleArtifactService(BaseArtifactService):
    """ADK's artifact service on Chronicle's store: versions in a chained log, bytes in the
    store's content-addressed blobs. Give it a store URL or the ``Store`` of a
    ``ChronicleSessionService`` (``.store``) to keep everything in one database."""

    def __init__(self, store: Store | str, *, owns_store: Optional[bool] = None):
        self.store = open_store(store) if isinstance(store, str) else store
        self._owns_store = isinstance(store, str) if owns_store is None else owns_store
        self.artifacts = LogArtifactService(self.store)

    async def save_artifact(
        self,
        *,
        app_name: str,
        user_id: str,
        filename: str,
        artifact: Union[types.Part, dict[str, Any]],
        session_id: Optional[str] = None,
        custom_metadata: Optional[dict[str, Any]] = None,
    ) -> int:
        return await self.artifacts.save_artifact(
            app_name=app_name, user_id=user_id, filename=filename, artifact=artifact,
            session_id=session_id, custom_metadata=custom_metadata,
        )

    async def load_artifact(
        self,
        *,
        app_name: str,
        user_id: str,
        filename: str,
        session_id: Optional[str] = None,
        version: Optional[int] = None,
    ) -> Optional[types.Part]:
        part = await self.artifacts.load_artifact(
            app_name=app_name, user_id=user_id, filename=filename, session_id=session_id, version=version
        )
        # ADK's rewind saves this marker as a new version of a file the rewind removes; every
        # ADK artifact service loads it as absent.
        if part is None or artifact_util._is_rewind_tombstone(part):
            return None
        return part

    async def list_artifact_keys(
        self, *, app_name: str, user_id: str, session_id: Optional[str] = None
    ) -> list[str]:
        return await self.artifacts.list_artifact_keys(app_name=app_name, user_id=user_id, session_id=session_id)

    async def delete_artifact(
        self, *, app_name: str, user_id: str, filename: str, session_id: Optional[str] = None
    ) -> None:
        await self.artifacts.delete_artifact(
            app_name=app_name, user_id=user_id, filename=filename, session_id=session_id
        )

    async def list_versions(
        self, *, app_name: str, user_id: str, filename: str, session_id: Optional[str] = None
    ) -> list[int]:
        return await self.artifacts.list_versions(
            app_name=app_name, user_id=user_id, filename=filename, session_id=session_id
        )

    async def list_artifact_versions(
        self, *, app_name: str, user_id: str, filename: str, session_id: Optional[str] = None
    ) -> list[ArtifactVersion]:
        versions = await self.artifacts.list_artifact_versions(
            app_name=app_name, user_id=user_id, filename=filename, session_id=session_id
        )
        return [_adk_version(v) for v in versions]

    async def get_artifact_version(
        self,
        *,
        app_name: str,
        user_id: str,
        filename: str,
        session_id: Optional[str] = None,
        version: Optional[int] = None,
    ) -> Optional[ArtifactVersion]:
        found = await self.artifacts.get_artifact_version(
            app_name=app_name, user_id=user_id, filename=filename, session_id=session_id, version=version
        )
        return None if found is None else _adk_version(found)

    async def close(self) -> None:
        await self.artifacts.close()
        if self._owns_store:
            self.store.close()


def _adk_version(version: Any) -> ArtifactVersion:
    # Chronicle's record also carries the content's sha256 and size; ADK's model has no place for them.
    return ArtifactVersion(
        version=version.version,
        canonical_uri=version.canonical_uri,
        custom_metadata=dict(version.custom_metadata),
        create_time=version.create_time,
        mime_type=version.mime_type,
    )
