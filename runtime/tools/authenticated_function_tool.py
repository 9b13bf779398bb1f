"""AuthenticatedFunctionTool (google.adk.tools.authenticated_function_tool): a FunctionTool that
runs only with a credential, passed to a `credential` parameter if the function has one (the
model never sees that parameter)."""

from __future__ import annotations

from typing import Any, Callable, Optional, Union

from google.genai import types

from runtime.auth.auth_tool import AuthConfig
from runtime.tools.base_authenticated_tool import PENDING_AUTHORIZATION, credential_manager_for, credential_or_request
from runtime.tools.declarations import build_function_declaration
from runtime.tools.function_tool import FunctionTool
from runtime.tools.tool_context import ToolContext

CREDENTIAL_PARAM = "credential"


class AuthenticatedFunctionTool(FunctionTool):
    def __init__(self, *, func: Callable[..., Any], auth_config: Optional[AuthConfig] = None,
                 response_for_auth_required: Optional[Union[dict[str, Any], str]] = None):
        super().__init__(func)
        self._ignore_params = [CREDENTIAL_PARAM]
        self._mandatory = [n for n in self._mandatory if n != CREDENTIAL_PARAM]
        self._credentials_manager = credential_manager_for(auth_config)
        self._response_for_auth_required = response_for_auth_required

    def _get_declaration(self) -> Optional[types.FunctionDeclaration]:
        if self._declaration is None:
            self._declaration = build_function_declaration(
                self.func, name=self.name, ignore=self._runtime_params | {CREDENTIAL_PARAM})
        return self._declaration

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        ready, credential = await credential_or_request(self._credentials_manager, tool_context)
        if not ready:
            return self._response_for_auth_required or PENDING_AUTHORIZATION
        return await self._run_async_impl(args=args, tool_context=tool_context, credential=credential)

    async def _run_async_impl(self, *, args: dict[str, Any], tool_context: ToolContext, credential: Any) -> Any:
        call_args = {k: v for k, v in args.items() if k != CREDENTIAL_PARAM}  # never the model's
        if CREDENTIAL_PARAM in self._signature.parameters:
            call_args[CREDENTIAL_PARAM] = credential
        return await super().run_async(args=call_args, tool_context=tool_context)
