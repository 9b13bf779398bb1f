"""google-adk's OpenAPI tools: OpenAPIToolset turns an OpenAPI spec into a RestApiTool per
operation. Needs the `openapi` extra (FastAPI's OpenAPI models)."""

from runtime.tools.openapi_tool.openapi_spec_parser import OpenAPIToolset, RestApiTool

__all__ = ["OpenAPIToolset", "RestApiTool"]
