"""OpenAPIToolset: an OpenAPI spec (a dict, or JSON/YAML text) as a RestApiTool per operation
(google.adk.tools.openapi_tool.openapi_spec_parser.openapi_toolset)."""

from __future__ import annotations

import json
import logging
import ssl
from typing import Any, Callable, Dict, List, Literal, Optional, Union

import yaml

from runtime.auth.auth_credential import AuthCredential
from runtime.auth.auth_tool import AuthConfig
from runtime.tools.base_toolset import BaseToolset, ToolPredicate
from runtime.tools.openapi_tool.openapi_spec_parser.openapi_spec_parser import OpenApiSpecParser
from runtime.tools.openapi_tool.openapi_spec_parser.operation_parser import MAX_TOOL_NAME_LENGTH
from runtime.tools.openapi_tool.openapi_spec_parser.rest_api_tool import HttpxClientFactory, RestApiTool

logger = logging.getLogger(__name__)


class OpenAPIToolset(BaseToolset):
    """`auth_scheme`/`auth_credential` (see openapi_tool.auth.auth_helpers) apply to every tool,
    replacing what the spec says. Requests to loopback or private hosts are refused unless
    `allow_private_network_access=True`."""

    def __init__(
        self,
        *,
        spec_dict: Optional[Dict[str, Any]] = None,
        spec_str: Optional[str] = None,
        spec_str_type: Literal["json", "yaml"] = "json",
        auth_scheme: Optional[Any] = None,
        auth_credential: Optional[AuthCredential] = None,
        credential_key: Optional[str] = None,
        tool_filter: Optional[Union[ToolPredicate, List[str]]] = None,
        tool_name_prefix: Optional[str] = None,
        ssl_verify: Optional[Union[bool, str, ssl.SSLContext]] = None,
        header_provider: Optional[Callable[[Any], Dict[str, str]]] = None,
        httpx_client_factory: Optional[HttpxClientFactory] = None,
        preserve_property_names: bool = False,
        allow_private_network_access: bool = False,
    ) -> None:
        super().__init__(tool_filter=tool_filter, tool_name_prefix=tool_name_prefix)
        self._header_provider = header_provider
        self._auth_scheme = auth_scheme
        self._auth_credential = auth_credential
        self._preserve_property_names = preserve_property_names
        self._auth_config: Optional[AuthConfig] = (
            AuthConfig(auth_scheme=auth_scheme, raw_auth_credential=auth_credential, credential_key=credential_key)
            if auth_scheme else None)
        self._ssl_verify = ssl_verify
        self._httpx_client_factory = httpx_client_factory
        self._allow_private_network_access = allow_private_network_access
        self._tools: List[RestApiTool] = self._parse(spec_dict or self._load_spec(spec_str, spec_str_type))
        for tool in self._tools:
            if auth_scheme:
                tool.configure_auth_scheme(auth_scheme)
            if auth_credential:
                tool.configure_auth_credential(auth_credential)
            if credential_key:
                tool.configure_credential_key(credential_key)

    def configure_ssl_verify_all(self, ssl_verify: Optional[Union[bool, str, ssl.SSLContext]] = None) -> None:
        self._ssl_verify = ssl_verify
        for tool in self._tools:
            tool.configure_ssl_verify(ssl_verify)

    async def get_tools(self, readonly_context: Optional[Any] = None) -> List[RestApiTool]:
        return [tool for tool in self._tools if self._is_tool_selected(tool, readonly_context)]

    def get_tool(self, tool_name: str) -> Optional[RestApiTool]:
        return next((tool for tool in self._tools if tool.name == tool_name), None)

    def _load_spec(self, spec_str: Optional[str], spec_type: Literal["json", "yaml"]) -> Dict[str, Any]:
        if not spec_str:
            raise ValueError("OpenAPIToolset needs spec_dict or spec_str.")
        if spec_type == "json":
            spec = json.loads(spec_str)
        elif spec_type == "yaml":
            spec = yaml.safe_load(spec_str)
        else:
            raise ValueError(f"Unsupported spec type: {spec_type}")
        if not isinstance(spec, dict):
            raise ValueError("The OpenAPI specification must be an object")
        return spec

    def _parse(self, openapi_spec_dict: Dict[str, Any]) -> List[RestApiTool]:
        operations = OpenApiSpecParser(preserve_property_names=self._preserve_property_names).parse(openapi_spec_dict)
        tools = [RestApiTool.from_parsed_operation(
            o, ssl_verify=self._ssl_verify, header_provider=self._header_provider,
            httpx_client_factory=self._httpx_client_factory,
            allow_private_network_access=self._allow_private_network_access) for o in operations]
        # Names cut to the length limit can collide: the later ones get _2, _3...
        taken = {tool.name for tool in tools}
        assigned: set[str] = set()
        for tool in tools:
            if tool.name in assigned:
                base, n = tool.name, 2
                while tool.name in assigned or tool.name in taken:
                    suffix = f"_{n}"
                    tool.name = base[:MAX_TOOL_NAME_LENGTH - len(suffix)] + suffix
                    n += 1
            assigned.add(tool.name)
        return tools

    async def close(self) -> None:
        pass
