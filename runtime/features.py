"""google-adk 2.13's feature switches (`google.adk.features`), so code that turns one on imports.

ADK gates its unreleased features behind these names. Chronicle has no such switches: what it
does, it always does, and what it does not do it refuses where used. So a switch is recorded
(``is_feature_enabled`` reads it back) and changes nothing; turning one on or off logs a warning
that says so. The exceptions, in ``HONOURED``, are the skills' switches, which act as in ADK."""

from __future__ import annotations

import logging
from enum import Enum
from typing import Union

logger = logging.getLogger(__name__)


class FeatureName(str, Enum):
    AGENT_CONFIG = "AGENT_CONFIG"
    AGENT_ENGINE_SANDBOX_ENVIRONMENT = "AGENT_ENGINE_SANDBOX_ENVIRONMENT"
    AGENT_STATE = "AGENT_STATE"
    AUTHENTICATED_FUNCTION_TOOL = "AUTHENTICATED_FUNCTION_TOOL"
    BASE_AUTHENTICATED_TOOL = "BASE_AUTHENTICATED_TOOL"
    BIG_QUERY_TOOLSET = "BIG_QUERY_TOOLSET"
    BIG_QUERY_TOOL_CONFIG = "BIG_QUERY_TOOL_CONFIG"
    BIGTABLE_TOOL_SETTINGS = "BIGTABLE_TOOL_SETTINGS"
    BIGTABLE_TOOLSET = "BIGTABLE_TOOLSET"
    CASCADE_LIVE = "CASCADE_LIVE"
    CLASSIFIER = "CLASSIFIER"
    COMPUTER_USE = "COMPUTER_USE"
    DATA_AGENT_TOOL_CONFIG = "DATA_AGENT_TOOL_CONFIG"
    DATA_AGENT_TOOLSET = "DATA_AGENT_TOOLSET"
    DYNAMIC_INSTRUCTION_ROUTING = "DYNAMIC_INSTRUCTION_ROUTING"
    DAYTONA_ENVIRONMENT = "DAYTONA_ENVIRONMENT"
    E2B_ENVIRONMENT = "E2B_ENVIRONMENT"
    ELEVEN_LABS = "ELEVEN_LABS"
    OPENSANDBOX_ENVIRONMENT = "OPENSANDBOX_ENVIRONMENT"
    ENVIRONMENT_SIMULATION = "ENVIRONMENT_SIMULATION"
    EVENTARC_TOOL_CONFIG = "EVENTARC_TOOL_CONFIG"
    EVENTARC_TOOLSET = "EVENTARC_TOOLSET"
    FALLBACK_MODEL = "FALLBACK_MODEL"
    FUNCTION_TOOL_ARG_VALIDATION = "FUNCTION_TOOL_ARG_VALIDATION"
    GCS_ADMIN_TOOLSET = "GCS_ADMIN_TOOLSET"
    GCS_TOOL_SETTINGS = "GCS_TOOL_SETTINGS"
    GCS_TOOLSET = "GCS_TOOLSET"
    GOOGLE_CREDENTIALS_CONFIG = "GOOGLE_CREDENTIALS_CONFIG"
    GOOGLE_TOOL = "GOOGLE_TOOL"
    JSON_SCHEMA_FOR_FUNC_DECL = "JSON_SCHEMA_FOR_FUNC_DECL"
    LIVEKIT = "LIVEKIT"
    MCP_AGENT_SERVER = "MCP_AGENT_SERVER"
    _MCP_GRACEFUL_ERROR_HANDLING = "MCP_GRACEFUL_ERROR_HANDLING"
    _MCP_MODERN_PROTOCOL = "MCP_MODERN_PROTOCOL"
    MONGODB_MEMORY_SERVICE = "MONGODB_MEMORY_SERVICE"
    MONGODB_SESSION_SERVICE = "MONGODB_SESSION_SERVICE"
    MONGODB_TOOLSET = "MONGODB_TOOLSET"
    MONGODB_TOOL_SETTINGS = "MONGODB_TOOL_SETTINGS"
    PROGRESSIVE_SSE_STREAMING = "PROGRESSIVE_SSE_STREAMING"
    PUBSUB_TOOL_CONFIG = "PUBSUB_TOOL_CONFIG"
    PUBSUB_TOOLSET = "PUBSUB_TOOLSET"
    SKILL_LIFECYCLE = "SKILL_LIFECYCLE"
    SKILL_TOOLSET = "SKILL_TOOLSET"
    SPANNER_TOOLSET = "SPANNER_TOOLSET"
    SPANNER_ADMIN_TOOLSET = "SPANNER_ADMIN_TOOLSET"
    SPANNER_TOOL_SETTINGS = "SPANNER_TOOL_SETTINGS"
    SPANNER_VECTOR_STORE = "SPANNER_VECTOR_STORE"
    TOOL_CONFIG = "TOOL_CONFIG"
    TOOL_CONFIRMATION = "TOOL_CONFIRMATION"
    PLUGGABLE_AUTH = "PLUGGABLE_AUTH"
    SNAKE_CASE_SKILL_NAME = "SNAKE_CASE_SKILL_NAME"
    IN_MEMORY_SESSION_SERVICE_LIGHT_COPY = "IN_MEMORY_SESSION_SERVICE_LIGHT_COPY"


_overrides: dict[FeatureName, bool] = {}


# The switches Chronicle honours as ADK does: skills' names and lifecycle (runtime.skills, runtime.tools.skill_toolset).
HONOURED = frozenset({FeatureName.SKILL_LIFECYCLE, FeatureName.SNAKE_CASE_SKILL_NAME})


def override_feature_enabled(feature_name: Union[FeatureName, str], enabled: bool) -> None:
    """Records the switch; unless it is one Chronicle honours, its behaviour does not change (see
    the module's note)."""
    name = FeatureName(feature_name)
    _overrides[name] = bool(enabled)
    if name not in HONOURED:
        logger.warning("Chronicle has no %s switch; turning it %s changes nothing.", name.value, "on" if enabled else "off")


def is_feature_enabled(feature_name: Union[FeatureName, str]) -> bool:
    """The recorded switch (False when none was recorded)."""
    return _overrides.get(FeatureName(feature_name), False)


__all__ = ["FeatureName", "is_feature_enabled", "override_feature_enabled"]
