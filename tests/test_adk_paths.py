"""An ADK 2.13 app's imports work once `google.adk` is rewritten to `runtime`, and every
path leads to the one class that lives at its home (re-exports, never copies)."""

from __future__ import annotations

import importlib

import pytest

# (module, name) as ADK 2.13 documents them: its package __init__ exports and the submodules
# apps import from.
ADK_PATHS = [
    ("google.adk", "Agent"),
    ("google.adk", "Workflow"),
    ("google.adk.workflow", "BaseNode"),
    ("google.adk.workflow", "DEFAULT_ROUTE"),
    ("google.adk.workflow", "Edge"),
    ("google.adk.workflow", "FunctionNode"),
    ("google.adk.workflow", "JoinNode"),
    ("google.adk.workflow", "Node"),
    ("google.adk.workflow", "NodeTimeoutError"),
    ("google.adk.workflow", "RetryConfig"),
    ("google.adk.workflow", "START"),
    ("google.adk.workflow", "Workflow"),
    ("google.adk.workflow", "node"),
    ("google.adk", "Context"),
    ("google.adk.agents.context", "Context"),
    ("google.adk.events", "RequestInput"),
    ("google.adk.events.request_input", "RequestInput"),
    ("google.adk.tools", "ToolConfirmation"),
    ("google.adk.tools.tool_confirmation", "ToolConfirmation"),
    ("google.adk.auth", "AuthConfig"),
    ("google.adk.auth", "AuthCredential"),
    ("google.adk.auth.auth_tool", "AuthConfig"),
    ("google.adk.auth.credential_service.base_credential_service", "BaseCredentialService"),
    ("google.adk.auth.credential_service.in_memory_credential_service", "InMemoryCredentialService"),
    ("google.adk", "Event"),
    ("google.adk", "Runner"),
    ("google.adk.agents", "Agent"),
    ("google.adk.agents", "BaseAgent"),
    ("google.adk.agents", "InvocationContext"),
    ("google.adk.agents", "LlmAgent"),
    ("google.adk.agents", "LoopAgent"),
    ("google.adk.agents", "ParallelAgent"),
    ("google.adk.agents", "RunConfig"),
    ("google.adk.agents", "SequentialAgent"),
    ("google.adk.agents.base_agent", "BaseAgent"),
    ("google.adk.agents.callback_context", "CallbackContext"),
    ("google.adk.agents.invocation_context", "InvocationContext"),
    ("google.adk.agents.llm_agent", "Agent"),
    ("google.adk.agents.llm_agent", "LlmAgent"),
    ("google.adk.agents.loop_agent", "LoopAgent"),
    ("google.adk.agents.parallel_agent", "ParallelAgent"),
    ("google.adk.agents.readonly_context", "ReadonlyContext"),
    ("google.adk.agents.run_config", "RunConfig"),
    ("google.adk.agents.run_config", "StreamingMode"),
    ("google.adk.agents.sequential_agent", "SequentialAgent"),
    ("google.adk.agents.base_agent", "BaseAgentState"),
    ("google.adk.agents.loop_agent", "LoopAgentState"),
    ("google.adk.agents.sequential_agent", "SequentialAgentState"),
    ("google.adk.planners", "BasePlanner"),
    ("google.adk.planners", "BuiltInPlanner"),
    ("google.adk.planners.base_planner", "BasePlanner"),
    ("google.adk.planners.built_in_planner", "BuiltInPlanner"),
    ("google.adk.code_executors", "BaseCodeExecutor"),
    ("google.adk.code_executors", "BuiltInCodeExecutor"),
    ("google.adk.code_executors.base_code_executor", "BaseCodeExecutor"),
    ("google.adk.code_executors.built_in_code_executor", "BuiltInCodeExecutor"),
    ("google.adk.tools.load_memory_tool", "LoadMemoryResponse"),
    ("google.adk.apps", "App"),
    ("google.adk.apps", "ResumabilityConfig"),
    ("google.adk.apps.app", "App"),
    ("google.adk.apps.app", "EventsCompactionConfig"),
    ("google.adk.apps.app", "ResumabilityConfig"),
    ("google.adk.apps.base_events_summarizer", "BaseEventsSummarizer"),
    ("google.adk.apps.llm_event_summarizer", "LlmEventSummarizer"),
    ("google.adk.artifacts", "BaseArtifactService"),
    ("google.adk.artifacts", "FileArtifactService"),
    ("google.adk.artifacts", "InMemoryArtifactService"),
    ("google.adk.artifacts.base_artifact_service", "ArtifactVersion"),
    ("google.adk.artifacts.base_artifact_service", "BaseArtifactService"),
    ("google.adk.artifacts.file_artifact_service", "FileArtifactService"),
    ("google.adk.artifacts.in_memory_artifact_service", "InMemoryArtifactService"),
    ("google.adk.errors", "InvocationNotFoundError"),
    ("google.adk.errors", "StaleSessionError"),
    ("google.adk.errors.already_exists_error", "AlreadyExistsError"),
    ("google.adk.errors.input_validation_error", "InputValidationError"),
    ("google.adk.errors.session_not_found_error", "SessionNotFoundError"),
    ("google.adk.events", "Event"),
    ("google.adk.events", "EventActions"),
    ("google.adk.events.event", "Event"),
    ("google.adk.events.event", "NodeInfo"),
    ("google.adk.events.event_actions", "EventActions"),
    ("google.adk.events.event_actions", "EventCompaction"),
    ("google.adk.memory", "BaseMemoryService"),
    ("google.adk.memory", "InMemoryMemoryService"),
    ("google.adk.memory.base_memory_service", "BaseMemoryService"),
    ("google.adk.memory.base_memory_service", "SearchMemoryResponse"),
    ("google.adk.memory.in_memory_memory_service", "InMemoryMemoryService"),
    ("google.adk.memory.memory_entry", "MemoryEntry"),
    ("google.adk.models", "BaseLlm"),
    ("google.adk.models", "Gemini"),
    ("google.adk.models", "LLMRegistry"),
    ("google.adk.models", "LlmRequest"),
    ("google.adk.models", "LlmResponse"),
    ("google.adk.models.base_llm", "BaseLlm"),
    ("google.adk.models.google_llm", "Gemini"),
    ("google.adk.models.llm_request", "LlmRequest"),
    ("google.adk.models.llm_response", "LlmResponse"),
    ("google.adk.models.registry", "LLMRegistry"),
    ("google.adk.plugins", "BasePlugin"),
    ("google.adk.plugins", "LoggingPlugin"),
    ("google.adk.plugins", "PluginManager"),
    ("google.adk.plugins", "DebugLoggingPlugin"),
    ("google.adk.plugins", "ReflectAndRetryToolPlugin"),
    ("google.adk.plugins.context_filter_plugin", "ContextFilterPlugin"),
    ("google.adk.plugins.debug_logging_plugin", "DebugLoggingPlugin"),
    ("google.adk.plugins.global_instruction_plugin", "GlobalInstructionPlugin"),
    ("google.adk.plugins.multimodal_tool_results_plugin", "MultimodalToolResultsPlugin"),
    ("google.adk.plugins.reflect_retry_tool_plugin", "ReflectAndRetryToolPlugin"),
    ("google.adk.plugins.reflect_retry_tool_plugin", "TrackingScope"),
    ("google.adk.plugins.save_files_as_artifacts_plugin", "SaveFilesAsArtifactsPlugin"),
    ("google.adk.plugins.base_plugin", "BasePlugin"),
    ("google.adk.plugins.logging_plugin", "LoggingPlugin"),
    ("google.adk.plugins.plugin_manager", "PluginManager"),
    ("google.adk.runners", "InMemoryRunner"),
    ("google.adk.runners", "Runner"),
    ("google.adk.sessions", "BaseSessionService"),
    ("google.adk.sessions", "DatabaseSessionService"),
    ("google.adk.sessions", "InMemorySessionService"),
    ("google.adk.sessions", "Session"),
    ("google.adk.sessions", "State"),
    ("google.adk.sessions.base_session_service", "BaseSessionService"),
    ("google.adk.sessions.base_session_service", "GetSessionConfig"),
    ("google.adk.sessions.base_session_service", "ListSessionsResponse"),
    ("google.adk.sessions.database_session_service", "DatabaseSessionService"),
    ("google.adk.sessions.in_memory_session_service", "InMemorySessionService"),
    ("google.adk.sessions.session", "Session"),
    ("google.adk.sessions.sqlite_session_service", "SqliteSessionService"),
    ("google.adk.sessions.state", "State"),
    ("google.adk.tools", "AgentTool"),
    ("google.adk.tools", "BaseTool"),
    ("google.adk.tools", "FunctionTool"),
    ("google.adk.tools", "LongRunningFunctionTool"),
    ("google.adk.tools", "ToolContext"),
    ("google.adk.tools", "TransferToAgentTool"),
    ("google.adk.tools", "load_memory"),
    ("google.adk.tools", "preload_memory"),
    ("google.adk.tools", "transfer_to_agent"),
    ("google.adk.tools", "ExampleTool"),
    ("google.adk.tools", "exit_loop"),
    ("google.adk.tools", "get_user_choice"),
    ("google.adk.tools", "google_search"),
    ("google.adk.tools", "load_artifacts"),
    ("google.adk.tools", "url_context"),
    ("google.adk.tools.base_toolset", "BaseToolset"),
    ("google.adk.tools.base_toolset", "ToolPredicate"),
    ("google.adk.tools.example_tool", "ExampleTool"),
    ("google.adk.tools.exit_loop_tool", "exit_loop"),
    ("google.adk.tools.get_user_choice_tool", "get_user_choice"),
    ("google.adk.tools.get_user_choice_tool", "get_user_choice_tool"),
    ("google.adk.tools.google_search_tool", "GoogleSearchTool"),
    ("google.adk.tools.google_search_tool", "google_search"),
    ("google.adk.tools.load_artifacts_tool", "LoadArtifactsTool"),
    ("google.adk.tools.load_artifacts_tool", "load_artifacts_tool"),
    ("google.adk.tools.url_context_tool", "UrlContextTool"),
    ("google.adk.tools.url_context_tool", "url_context"),
    ("google.adk.examples", "Example"),
    ("google.adk.examples", "BaseExampleProvider"),
    ("google.adk.examples.example", "Example"),
    ("google.adk.examples.base_example_provider", "BaseExampleProvider"),
    ("google.adk.tools", "McpToolset"),
    ("google.adk.tools", "MCPToolset"),
    ("google.adk.tools.mcp_tool", "McpToolset"),
    ("google.adk.tools.mcp_tool", "MCPToolset"),
    ("google.adk.tools.mcp_tool", "McpTool"),
    ("google.adk.tools.mcp_tool", "StdioConnectionParams"),
    ("google.adk.tools.mcp_tool", "StreamableHTTPConnectionParams"),
    ("google.adk.tools.mcp_tool.mcp_session_manager", "StdioConnectionParams"),
    ("google.adk.tools.mcp_tool.mcp_session_manager", "StreamableHTTPConnectionParams"),
    ("google.adk.tools.mcp_tool.mcp_session_manager", "StdioServerParameters"),
    ("google.adk.tools.mcp_tool.mcp_toolset", "McpToolset"),
    ("google.adk.tools.mcp_tool.mcp_toolset", "MCPToolset"),
    ("google.adk.tools.mcp_tool.mcp_tool", "McpTool"),
    ("google.adk.tools.agent_tool", "AgentTool"),
    ("google.adk.tools.base_tool", "BaseTool"),
    ("google.adk.tools.function_tool", "FunctionTool"),
    ("google.adk.tools.load_memory_tool", "LoadMemoryTool"),
    ("google.adk.tools.load_memory_tool", "load_memory_tool"),
    ("google.adk.tools.long_running_tool", "LongRunningFunctionTool"),
    ("google.adk.tools.preload_memory_tool", "PreloadMemoryTool"),
    ("google.adk.tools.preload_memory_tool", "preload_memory_tool"),
    ("google.adk.tools.tool_context", "ToolContext"),
    ("google.adk.tools.transfer_to_agent_tool", "TransferToAgentTool"),
    ("google.adk.tools.transfer_to_agent_tool", "transfer_to_agent"),
    ("google.adk.agents.context_cache_config", "ContextCacheConfig"),
    ("google.adk.agents.base_agent", "BeforeAgentCallback"),
    ("google.adk.agents.base_agent", "AfterAgentCallback"),
    ("google.adk.agents.llm_agent", "BeforeModelCallback"),
    ("google.adk.agents.llm_agent", "AfterModelCallback"),
    ("google.adk.agents.llm_agent", "OnModelErrorCallback"),
    ("google.adk.agents.llm_agent", "BeforeToolCallback"),
    ("google.adk.agents.llm_agent", "AfterToolCallback"),
    ("google.adk.agents.llm_agent", "OnToolErrorCallback"),
    ("google.adk.events.ui_widget", "UiWidget"),
    ("google.adk.artifacts.base_artifact_service", "ensure_part"),
    ("google.adk.tools", "request_input"),
    ("google.adk.tools", "VertexAiSearchTool"),
    ("google.adk.tools.vertex_ai_search_tool", "VertexAiSearchTool"),
    ("google.adk.cli.utils.logs", "setup_adk_logger"),
    ("google.adk.cli.utils.logs", "log_to_tmp_folder"),
    ("google.adk.agents", "LiveRequest"),
    ("google.adk.agents", "LiveRequestQueue"),
    ("google.adk.agents.live_request_queue", "LiveRequestQueue"),
    ("google.adk.models.base_llm_connection", "BaseLlmConnection"),
    ("google.adk.utils.context_utils", "Aclosing"),
    ("google.adk.artifacts.artifact_util", "parse_artifact_uri"),
    ("google.adk.artifacts.artifact_util", "get_artifact_uri"),
    ("google.adk.artifacts.artifact_util", "is_artifact_ref"),
    ("google.adk.artifacts.artifact_util", "validate_path_segment"),
    ("google.adk.plugins.plugin_manager", "PluginCallbackName"),
    ("google.adk.features", "FeatureName"),
    ("google.adk.tools", "enterprise_web_search"),
    ("google.adk.tools.enterprise_search_tool", "EnterpriseWebSearchTool"),
    ("google.adk.tools.enterprise_search_tool", "enterprise_web_search_tool"),
    ("google.adk.features", "override_feature_enabled"),
    ("google.adk.features", "is_feature_enabled"),
    ("google.adk.artifacts.gcs_artifact_service", "GcsArtifactService"),
    ("google.adk.sessions.vertex_ai_session_service", "VertexAiSessionService"),
]


# In ADK too these are two objects: the package exports the tool, its module the function.
TWO_OBJECTS_IN_ADK = {"get_user_choice"}


def rewrite(module: str) -> str:
    return "runtime" + module.removeprefix("google.adk")


@pytest.mark.parametrize(("module", "name"), ADK_PATHS, ids=[f"{m}.{n}" for m, n in ADK_PATHS])
def test_adk_import_path_resolves_after_rewrite(module, name):
    assert getattr(importlib.import_module(rewrite(module)), name) is not None


def test_each_name_has_one_class_whatever_the_path():
    """All paths to one ADK name lead to the same object: nothing is copied."""
    found: dict[str, set[int]] = {}
    for module, name in ADK_PATHS:
        if name in TWO_OBJECTS_IN_ADK:
            continue
        found.setdefault(name, set()).add(id(getattr(importlib.import_module(rewrite(module)), name)))
    assert {name: len(ids) for name, ids in found.items() if len(ids) > 1} == {}


def test_adk_paths_are_chronicles_own_classes():
    import domain
    import runtime
    from runtime import events, runners, sessions
    from runtime.agents import callback_context, run_config
    from runtime.runner import Runner

    assert events.Event is domain.events.Event is runtime.Event
    assert events.EventActions is domain.events.EventActions
    assert runners.Runner is Runner is runtime.Runner
    assert sessions.Session is domain.session.Session
    assert callback_context.CallbackContext is runtime.CallbackContext
    assert run_config.RunConfig is runtime.RunConfig


def test_an_unknown_name_is_an_import_error():
    with pytest.raises(ImportError):
        exec("from runtime.events import NoSuchThing", {})
