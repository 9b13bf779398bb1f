"""BaseAuthenticatedTool (google.adk.tools.base_authenticated_tool): a tool that runs only with a
credential. Without one it asks the client (an `adk_request_credential` pause) and answers
`response_for_auth_required` (default "Pending User Authorization.")."""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from typing import Any, Optional, Union

from runtime.auth.auth_credential import AuthCredential
from runtime.auth.auth_tool import AuthConfig
from runtime.auth.credential_manager import CredentialManager
from runtime.tools.base_tool import BaseTool
from runtime.tools.tool_context import ToolContext

logger = logging.getLogger(__name__)

PENDING_AUTHORIZATION = "Pending User Authorization."


def credential_manager_for(auth_config: Optional[AuthConfig]) -> Optional[CredentialManager]:
    """A manager for a config that names a scheme; None (no authentication) otherwise."""
    if auth_config is not None and auth_config.auth_scheme:
        return CredentialManager(auth_config=auth_config)
    logger.debug("auth_config or auth_config.auth_scheme is missing, so authentication will be skipped.")
    return None


async def credential_or_request(manager: Optional[CredentialManager], tool_context: Any) -> tuple[bool, Any]:
    """(True, credential) when the tool may run (credential None without a manager); (False, None)
    after asking the client for one."""
    if manager is None:
        return True, None
    credential = await manager.get_auth_credential(tool_context)
    if credential:
        return True, credential
    await manager.request_credential(tool_context)
    return False, None


class BaseAuthenticatedTool(BaseTool, ABC):
    def __init__(self, *, name: str, description: str, auth_config: Optional[AuthConfig] = None,
                 response_for_auth_required: Optional[Union[dict[str, Any], str]] = None) -> None:
        super().__init__(name=name, description=description)
        self._auth_config = auth_config
        self._credentials_manager = credential_manager_for(auth_config)
        self._response_for_auth_required = response_for_auth_required

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        ready, credential = await credential_or_request(self._credentials_manager, tool_context)
        if not ready:
            return self._response_for_auth_required or PENDING_AUTHORIZATION
        return await self._run_async_impl(args=args, tool_context=tool_context, credential=credential)

    @abstractmethod
    async def _run_async_impl(self, *, args: dict[str, Any], tool_context: ToolContext,
                              credential: AuthCredential) -> Any:
        """The tool's work, with the credential (None when the tool has no auth_config)."""
