from runtime.tools.openapi_tool.auth import auth_helpers

__all__ = ["auth_helpers"]
