from runtime.tools.openapi_tool.openapi_spec_parser.openapi_spec_parser import (
    OpenApiSpecParser,
    OperationEndpoint,
    ParsedOperation,
)
from runtime.tools.openapi_tool.openapi_spec_parser.openapi_toolset import OpenAPIToolset
from runtime.tools.openapi_tool.openapi_spec_parser.operation_parser import OperationParser
from runtime.tools.openapi_tool.openapi_spec_parser.rest_api_tool import RestApiTool, snake_to_lower_camel
from runtime.tools.openapi_tool.openapi_spec_parser.tool_auth_handler import (
    AuthPreparationState,
    ToolAuthHandler,
    UnauthorizedRecoveryState,
)

__all__ = [
    "AuthPreparationState",
    "OpenAPIToolset",
    "OpenApiSpecParser",
    "OperationEndpoint",
    "OperationParser",
    "ParsedOperation",
    "RestApiTool",
    "ToolAuthHandler",
    "UnauthorizedRecoveryState",
    "snake_to_lower_camel",
]
