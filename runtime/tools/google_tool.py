"""GoogleTool (google-adk 2.13's `tools.google_tool`): a function that calls a Google API, given
`credentials` and the toolset's `settings` by the runtime (the model never sees either)."""

from __future__ import annotations

import inspect
from typing import Any, Callable, Optional

from pydantic import BaseModel

from runtime.tools.function_tool import FunctionTool
from runtime.tools.google_credentials import BaseGoogleCredentialsConfig
from runtime.tools.tool_context import ToolContext

_INJECTED = frozenset({"credentials", "settings"})

OAUTH_REFUSAL = (
    "{name} needs a Google user's OAuth authorisation, which Chronicle does not run for Google API "
    "tools. Configure ready credentials (credentials=...) or an access token kept in state "
    "(external_access_token_key=...) instead."
)


class GoogleTool(FunctionTool):
    """Credentials come from the config: ready `credentials`, or an access token read from state
    at `external_access_token_key`. A config that needs each user's OAuth consent (client id and
    secret) is refused when the tool is called, with a message saying so. Errors come back as
    {"status": "ERROR", "error_details": ...}, as in ADK."""

    def __init__(
        self,
        func: Callable[..., Any],
        *,
        credentials_config: Optional[BaseGoogleCredentialsConfig] = None,
        tool_settings: Optional[BaseModel] = None,
    ):
        super().__init__(func=func)
        # Hidden from the model's declaration; still passed to the function (run_async fills them).
        self._runtime_params = self._runtime_params | _INJECTED
        self._credentials_config = credentials_config
        self._tool_settings = tool_settings

    def _credentials(self, tool_context: ToolContext) -> Any:
        config = self._credentials_config
        if config is None:
            return None
        if config.credentials is not None:
            return config.credentials
        if config.external_access_token_key:
            token = tool_context.state.get(config.external_access_token_key)
            if not token:
                raise PermissionError(f"No access token in state at {config.external_access_token_key!r}.")
            from google.oauth2.credentials import Credentials

            return Credentials(token=token)
        raise PermissionError(OAUTH_REFUSAL.format(name=self.name))

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        try:
            call_args = dict(args or {})
            params = inspect.signature(self.func).parameters
            if "credentials" in params:
                call_args["credentials"] = self._credentials(tool_context)
            if "settings" in params:
                call_args["settings"] = self._tool_settings
            return await super().run_async(args=call_args, tool_context=tool_context)
        except Exception as exc:  # noqa: BLE001 - the model is told, as ADK tells it
            return {"status": "ERROR", "error_details": str(exc)}

    def _detect_error_in_response(self, response: Any) -> Optional[str]:
        return "TOOL_ERROR" if isinstance(response, dict) and response.get("status") == "ERROR" else None
