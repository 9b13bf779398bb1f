from runtime.tools.openapi_tool.common import common

__all__ = ["common"]
