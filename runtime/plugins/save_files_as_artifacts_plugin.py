"""SaveFilesAsArtifactsPlugin: files a user sends inline are saved as artifacts, and the message
that is stored names them instead of carrying their bytes."""

from __future__ import annotations

import logging
import urllib.parse
from typing import TYPE_CHECKING, Optional

from google.genai import types

from runtime.plugins.base_plugin import BasePlugin

if TYPE_CHECKING:
    from runtime.agents.base_agent import BaseAgent
    from runtime.contexts import CallbackContext
    from runtime.invocation_context import InvocationContext

logger = logging.getLogger("chronicle.plugins.save_files_as_artifacts")

MAX_INLINE_BYTES = 20 * 1024 * 1024  # what Gemini accepts inline
_MODEL_READABLE_SCHEMES = {"gs", "https", "http"}


class SaveFilesAsArtifactsPlugin(BasePlugin):
    """Each inline file becomes a session artifact named by its ``display_name`` (``user:`` names
    are shared by the user's sessions) and is replaced in the message by
    ``[Uploaded Artifact: "name"]`` — plus a file reference the model can open, when the
    artifact's URI is one (gs://, http(s)://). The saved versions are recorded in the
    ``artifact_delta`` of the first agent's event. Use load_artifacts to read them."""

    def __init__(self, name: str = "save_files_as_artifacts_plugin", *, attach_file_reference: bool = True):
        super().__init__(name)
        self.attach_file_reference = attach_file_reference
        self._pending: dict[str, dict[str, int]] = {}  # invocation id -> artifact versions to record

    async def on_user_message_callback(
        self, *, invocation_context: InvocationContext, user_message: types.Content
    ) -> Optional[types.Content]:
        service = invocation_context.artifact_service
        if service is None:
            logger.warning("SaveFilesAsArtifactsPlugin needs an artifact service on the Runner; files are kept inline")
            return user_message  # as google-adk 2.13 answers: the message as it came
        if not user_message.parts or not any(p.inline_data for p in user_message.parts):
            return None
        parts: list[types.Part] = []
        saved: dict[str, int] = {}
        for i, part in enumerate(user_message.parts):
            blob = part.inline_data
            if blob is None:
                parts.append(part)
                continue
            filename = blob.display_name or f"artifact_{invocation_context.invocation_id}_{i}"
            size = len(blob.data or b"")
            if size > MAX_INLINE_BYTES:
                parts.append(types.Part(text=f"[Upload Error: File {filename} ({size / 2**20:.2f} MB) exceeds the "
                                        f"maximum supported size of {MAX_INLINE_BYTES // 2**20}MB. Please upload a "
                                        "smaller file.]"))
                continue
            try:
                version = await service.save_artifact(
                    app_name=invocation_context.app_name, user_id=invocation_context.user_id,
                    session_id=invocation_context.session.id, filename=filename, artifact=part,
                )
            except Exception:  # noqa: BLE001 - an artifact that cannot be saved stays inline, as in ADK
                logger.exception("Could not save the file %r as an artifact; it stays in the message", filename)
                parts.append(part)
                continue
            saved[filename] = version
            parts.append(types.Part(text=f'[Uploaded Artifact: "{filename}"]'))
            reference = await self._reference(invocation_context, filename, version, blob.mime_type)
            if reference is not None:
                parts.append(reference)
        if not saved and parts == list(user_message.parts):
            return None  # nothing could be saved: the message stays as it came (ADK's answer)
        self._pending.setdefault(invocation_context.invocation_id, {}).update(saved)
        return types.Content(role=user_message.role, parts=parts)

    async def before_agent_callback(self, *, agent: BaseAgent, callback_context: CallbackContext) -> None:
        saved = self._pending.pop(callback_context.invocation_id, None)
        if saved:
            callback_context.actions.artifact_delta.update(saved)
        return None

    async def _reference(
        self, ctx: InvocationContext, filename: str, version: int, mime_type: Optional[str]
    ) -> Optional[types.Part]:
        if not self.attach_file_reference:
            return None
        info = await ctx.artifact_service.get_artifact_version(
            app_name=ctx.app_name, user_id=ctx.user_id, session_id=ctx.session.id, filename=filename, version=version
        )
        uri = getattr(info, "canonical_uri", None)
        if not uri or urllib.parse.urlparse(uri).scheme.lower() not in _MODEL_READABLE_SCHEMES:
            return None
        return types.Part(file_data=types.FileData(file_uri=uri, mime_type=mime_type or info.mime_type,
                                                   display_name=filename))
