"""RestApiTool: one OpenAPI operation as a tool. The model's arguments become the request's path,
query, header, cookie and body parameters, the credential is attached, and the call goes out
through httpx (google.adk.tools.openapi_tool.openapi_spec_parser.rest_api_tool)."""

from __future__ import annotations

import logging
import ssl
from typing import Any, Callable, Dict, List, Optional, Tuple, Union
from urllib.parse import parse_qs, quote, urlparse, urlunparse

import httpx
from google.genai import types

from domain.errors import InputValidationError
from runtime.auth.auth_credential import AuthCredential
from runtime.tools.base_tool import BaseTool
from runtime.tools.openapi_tool.auth.auth_helpers import credential_to_param, dict_to_auth_scheme
from runtime.tools.openapi_tool.auth.credential_exchangers.auto_auth_credential_exchanger import (
    AutoAuthCredentialExchanger,
)
from runtime.tools.openapi_tool.common.common import ApiParameter, Schema, to_snake_case
from runtime.tools.openapi_tool.models import openapi_models
from runtime.tools.openapi_tool.openapi_spec_parser.openapi_spec_parser import OperationEndpoint, ParsedOperation
from runtime.tools.openapi_tool.openapi_spec_parser.operation_parser import MAX_TOOL_NAME_LENGTH, OperationParser
from runtime.tools.openapi_tool.openapi_spec_parser.tool_auth_handler import AuthPreparationState, ToolAuthHandler
from runtime.tools.openapi_tool.openapi_spec_parser.url_guard import check_public_url

logger = logging.getLogger(__name__)

HttpxClientFactory = Callable[[], httpx.AsyncClient]
"""Makes a fresh httpx.AsyncClient for each call (proxies, HTTP/2, custom transports...)."""

DEFAULT_TIMEOUT = httpx.Timeout(connect=10.0, read=600.0, write=600.0, pool=10.0)
PENDING_AUTH = {"pending": True, "message": "Needs your authorization to access your data."}
# How each request-body media type is handed to httpx.
_BODY_ARGUMENT = {"application/x-www-form-urlencoded": "data", "multipart/form-data": "files",
                  "application/octet-stream": "data", "text/plain": "data"}

__all__ = ["AuthPreparationState", "HttpxClientFactory", "RestApiTool", "snake_to_lower_camel"]


def snake_to_lower_camel(snake_case_string: str) -> str:
    if "_" not in snake_case_string:
        return snake_case_string
    first, *rest = snake_case_string.split("_")
    return first.lower() + "".join(part.capitalize() for part in rest)


def _param_string(value: object) -> str:
    """A path, header or cookie value as OpenAPI's default `simple` style writes it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ",".join(_param_string(v) for v in value if v is not None)
    if isinstance(value, dict):
        return ",".join(f"{k},{_param_string(v)}" for k, v in value.items() if v is not None)
    return str(value)


def _path_segment(name: str, value: str) -> str:
    """A path parameter percent-encoded as one segment; `.` and `..` are refused, since a server
    that decodes `%2F` and then merges dot-segments would route to a path the spec never declared."""
    if any(segment in (".", "..") for segment in value.replace("\\", "/").split("/")):
        raise InputValidationError(
            f"Path parameter {name!r} must not contain current-directory or parent-directory segments.")
    return quote(value, safe="")


def _token_rejected(response: httpx.Response) -> bool:
    """A 401 that blames the token (RFC 6750's invalid_token, or no explanation at all)."""
    if response.status_code != 401:
        return False
    challenge = response.headers.get("www-authenticate", "").lower()
    return not challenge or "invalid_token" in challenge


class RestApiTool(BaseTool):
    def __init__(
        self,
        name: str,
        description: str,
        endpoint: Union[OperationEndpoint, str],
        operation: Union[Any, str],
        auth_scheme: Optional[Union[Any, Dict[str, Any]]] = None,
        auth_credential: Optional[Union[AuthCredential, str]] = None,
        should_parse_operation: bool = True,
        ssl_verify: Optional[Union[bool, str, ssl.SSLContext]] = None,
        header_provider: Optional[Callable[[Any], Dict[str, str]]] = None,
        httpx_client_factory: Optional[HttpxClientFactory] = None,
        *,
        credential_key: Optional[str] = None,
        allow_private_network_access: bool = False,
    ):
        super().__init__(name=name[:MAX_TOOL_NAME_LENGTH], description=description)
        self.endpoint = OperationEndpoint.model_validate_json(endpoint) if isinstance(endpoint, str) else endpoint
        self.operation = (openapi_models.Operation.model_validate_json(operation)
                          if isinstance(operation, str) else operation)
        self.auth_scheme: Optional[Any] = None
        self.auth_credential: Optional[AuthCredential] = None
        self.credential_key = credential_key
        self.configure_auth_credential(auth_credential)
        self.configure_auth_scheme(auth_scheme)
        self.credential_exchanger = AutoAuthCredentialExchanger()
        self._default_headers: Dict[str, str] = {}
        self._ssl_verify = ssl_verify
        self._header_provider = header_provider
        self._httpx_client_factory = httpx_client_factory
        self._allow_private_network_access = allow_private_network_access
        if should_parse_operation:
            self._operation_parser = OperationParser(self.operation)

    @classmethod
    def from_parsed_operation(cls, parsed: ParsedOperation, ssl_verify: Optional[Union[bool, str, ssl.SSLContext]] = None,
                              header_provider: Optional[Callable[[Any], Dict[str, str]]] = None,
                              httpx_client_factory: Optional[HttpxClientFactory] = None, *,
                              allow_private_network_access: bool = False) -> RestApiTool:
        parser = OperationParser.load(parsed.operation, parsed.parameters, parsed.return_value)
        tool = cls(name=to_snake_case(parser.get_function_name()),
                   description=parsed.operation.description or parsed.operation.summary or "",
                   endpoint=parsed.endpoint, operation=parsed.operation, auth_scheme=parsed.auth_scheme,
                   auth_credential=parsed.auth_credential, should_parse_operation=False, ssl_verify=ssl_verify,
                   header_provider=header_provider, httpx_client_factory=httpx_client_factory,
                   allow_private_network_access=allow_private_network_access)
        tool._operation_parser = parser
        return tool

    @classmethod
    def from_parsed_operation_str(cls, parsed_operation_str: str) -> RestApiTool:
        return cls.from_parsed_operation(ParsedOperation.model_validate_json(parsed_operation_str))

    def _get_declaration(self) -> types.FunctionDeclaration:
        return types.FunctionDeclaration(name=self.name, description=self.description,
                                         parameters_json_schema=self._operation_parser.get_json_schema())

    def configure_auth_scheme(self, auth_scheme: Optional[Union[Any, Dict[str, Any]]]) -> None:
        self.auth_scheme = dict_to_auth_scheme(auth_scheme) if isinstance(auth_scheme, dict) else auth_scheme

    def configure_auth_credential(self, auth_credential: Optional[Union[AuthCredential, str]] = None) -> None:
        if isinstance(auth_credential, str):
            auth_credential = AuthCredential.model_validate_json(auth_credential)
        self.auth_credential = auth_credential

    def configure_credential_key(self, credential_key: Optional[str] = None) -> None:
        self.credential_key = credential_key

    def configure_ssl_verify(self, ssl_verify: Optional[Union[bool, str, ssl.SSLContext]] = None) -> None:
        self._ssl_verify = ssl_verify

    def set_default_headers(self, headers: Dict[str, str]) -> None:
        """Headers sent with every request unless the call sets them itself."""
        self._default_headers = headers

    def _prepare_auth_request_params(self, auth_scheme: Any, auth_credential: AuthCredential
                                     ) -> Tuple[Optional[ApiParameter], Optional[Dict[str, Any]]]:
        if not auth_scheme or not auth_credential:
            return None, None
        return credential_to_param(auth_scheme, auth_credential)

    def _prepare_request_params(self, parameters: List[ApiParameter], kwargs: Dict[str, Any]) -> Dict[str, Any]:
        """httpx.AsyncClient.request's arguments for a call with these arguments."""
        method = self.endpoint.method.lower()
        if not method:
            raise ValueError("Operation method not found.")
        path: Dict[str, str] = {}
        query: Dict[str, Any] = {}
        headers: Dict[str, str] = {"User-Agent": f"chronicle (tool: {self.name})"}
        cookies: Dict[str, str] = {}
        if self.auth_credential and self.auth_credential.http and self.auth_credential.http.additional_headers:
            headers.update(self.auth_credential.http.additional_headers)
        by_name = {p.py_name: p for p in parameters}
        for name, value in kwargs.items():
            param = by_name.get(name)
            if param is None:
                continue  # not a parameter of the operation
            where, original = param.param_location, param.original_name
            if where == "path":
                path[original] = _path_segment(original, _param_string(value))
            elif value is None:
                continue
            elif where == "query":
                query[original] = value
            elif where == "header":
                headers[original] = _param_string(value)
            elif where == "cookie":
                cookies[original] = _param_string(value)
        base_url = (self.endpoint.base_url or "").removesuffix("/")
        try:
            formatted = self.endpoint.path.format(**path)
        except KeyError as e:
            missing = e.args[0] if e.args else str(e)
            py_name = next((p.py_name for p in parameters
                            if p.param_location == "path" and p.original_name == missing and p.py_name), None)
            if py_name:
                raise InputValidationError(f"Missing required path parameter '{py_name}'.") from e
            raise
        url = urlparse(f"{base_url}{formatted}")
        for part in (url.query, url.fragment):  # a query written into the spec's path or server URL
            for key, values in parse_qs(part).items():
                query.setdefault(key, values[0] if len(values) == 1 else values)
        if cookies:  # as a header: httpx's per-request cookies are deprecated
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in cookies.items())
        request: Dict[str, Any] = {"method": method, "url": urlunparse(url._replace(query="", fragment="")),
                                   "params": {k: v for k, v in query.items() if v is not None},
                                   "headers": headers}
        request.update(self._body_arguments(parameters, kwargs, headers))
        for key, value in self._default_headers.items():
            headers.setdefault(key, value)
        return request

    def _body_arguments(self, parameters: List[ApiParameter], kwargs: Dict[str, Any],
                        headers: Dict[str, str]) -> Dict[str, Any]:
        body = self.operation.requestBody
        if not body or not body.content:
            return {}
        mime_type, media = next(iter(body.content.items()))  # the first media type only
        body_params = [p for p in parameters if p.param_location == "body"]
        if media.schema_ is not None and media.schema_.type == "object":
            data: Any = {p.original_name: kwargs[p.py_name] for p in body_params if p.py_name in kwargs}
        else:
            data = kwargs.get(body_params[0].py_name) if body_params else None
        if mime_type != "multipart/form-data":
            headers["Content-Type"] = mime_type
        if mime_type == "application/json" or mime_type.endswith("+json"):
            return {"json": data} if data is not None else {}
        argument = _BODY_ARGUMENT.get(mime_type)
        return {argument: data} if argument else {}

    async def run_async(self, *, args: dict[str, Any], tool_context: Any) -> Dict[str, Any]:
        return await self.call(args=args, tool_context=tool_context)

    async def call(self, *, args: dict[str, Any], tool_context: Any) -> Dict[str, Any]:
        """Calls the API. Failures (HTTP errors, refused URLs, timeouts) come back as an `error`
        the model can read, not as exceptions; a credential still to come, as `pending`."""
        handler = ToolAuthHandler.from_tool_context(tool_context, self.auth_scheme, self.auth_credential,
                                                    credential_key=self.credential_key)
        prepared = await handler.prepare_auth_credentials()
        if prepared.state == "pending":
            return dict(PENDING_AUTH)
        params = list(self._operation_parser.get_parameters())
        api_args = dict(args)
        for param in params:  # a required parameter the model left out takes the spec's default
            if (param.py_name not in api_args and param.required and isinstance(param.param_schema, Schema)
                    and param.param_schema.default is not None):
                api_args[param.py_name] = param.param_schema.default
        if prepared.auth_credential:
            auth_param, auth_args = self._prepare_auth_request_params(prepared.auth_scheme, prepared.auth_credential)
            if auth_param and auth_args:
                params.insert(0, auth_param)
                api_args.update(auth_args)
        try:
            request = self._prepare_request_params(params, api_args)
        except InputValidationError as e:
            return self._format_error_response(str(e))
        if self._header_provider is not None and tool_context is not None:
            request["headers"].update(self._header_provider(tool_context) or {})
        try:
            response = await self._send(request)
        except ValueError as e:
            return self._format_error_response(str(e))
        except httpx.TimeoutException as e:
            logger.warning("API call timed out for tool %s: %s %s", self.name, request["method"].upper(), request["url"])
            return self._format_error_response(f"Request timed out ({type(e).__name__}).")
        if response.status_code != 401:
            handler.note_successful_call()
        if response.is_error:
            logger.warning("API call failed for tool %s: Status %d - %s", self.name, response.status_code, response.text)
            if _token_rejected(response) and prepared.auth_credential and tool_context is not None:
                with handler.claim_recovery() as claimed:  # held across the retry: it cannot recurse
                    if claimed:
                        recovery = await handler.handle_unauthorized_error()
                        if recovery == "refreshed":
                            return await self.call(args=args, tool_context=tool_context)
                        if recovery == "reauth_requested":
                            return dict(PENDING_AUTH)
                        if recovery == "reauth_limit_reached":
                            return {"error": (
                                f"Tool {self.name} execution failed. The user already re-authorized this "
                                "connection and the API still rejected the credential, so retrying will not "
                                "help. Report this to the user and suggest checking the application's access "
                                f"or permission settings. Status Code: {response.status_code}, {response.text}")}
            return self._format_error_response(f"Status Code: {response.status_code}, {response.text}")
        try:
            return response.json()
        except ValueError:
            return {"text": response.text}

    async def _send(self, request: Dict[str, Any]) -> httpx.Response:
        if not self._allow_private_network_access:
            await check_public_url(request["url"])
        verify = self._ssl_verify if self._ssl_verify is not None else True
        client = (self._httpx_client_factory() if self._httpx_client_factory is not None
                  else httpx.AsyncClient(timeout=DEFAULT_TIMEOUT, verify=verify))
        async with client:  # redirects are not followed: one could lead to a private host
            return await client.request(follow_redirects=False, **request)

    def _format_error_response(self, error_message: str) -> dict[str, str]:
        # google-adk 2.13's words: the model reads them.
        return {"error": f"Tool {self.name} execution failed. Analyze this execution error and your inputs. "
                         "Retry with adjustments if applicable. But make sure don't retry more than 3 times. "
                         f"Execution Error: {error_message}"}

    def __str__(self) -> str:
        return f'RestApiTool(name="{self.name}", description="{self.description}", endpoint="{self.endpoint}")'

    def __repr__(self) -> str:
        return (f'RestApiTool(name="{self.name}", description="{self.description}", endpoint="{self.endpoint}", '
                f'operation="{self.operation}", auth_scheme="{self.auth_scheme}")')
