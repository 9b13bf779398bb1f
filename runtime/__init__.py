"""Chronicle's runtime: ADK's public API (Runner, agents, tools, callbacks, plugins, models,
sessions) over an event-sourced log.

    from runtime import InMemoryRunner, LlmAgent, FunctionTool
"""

from domain.events import Event, EventActions
from runtime.agents import (
    Agent,
    BaseAgent,
    InstructionProvider,
    InstructionVariableError,
    LlmAgent,
    LoopAgent,
    ParallelAgent,
    SequentialAgent,
)
from runtime.app import App, ResumabilityConfig
from runtime.compaction import BaseEventsSummarizer, EventsCompactionConfig, LlmEventSummarizer
from runtime.artifacts.base import BaseArtifactService
from runtime.callbacks import CallbackContext, ReadonlyContext
from runtime.contexts import Context, ServiceNotConfiguredError
from runtime.tools.tool_confirmation import ToolConfirmation
from runtime.invocation_context import InvocationContext, new_invocation_context_id
from runtime.memory.base import BaseMemoryService, MemoryEntry, SearchMemoryResponse
from runtime.models import (
    BaseLlm,
    Gemini,
    LLMRegistry,
    LlmRequest,
    LlmResponse,
    ModelConnectionError,
    ScriptedLlm,
    ScriptExhaustedError,
    StreamingAggregator,
    UnknownModelError,
)
from runtime.plugins import BasePlugin, LoggingPlugin, PluginError, PluginManager
from runtime.run_config import RunConfig, StreamingMode
from runtime.replay import ReplayReport, ReplayTurn
from runtime.runner import InMemoryRunner, Runner
from runtime.workflow import Workflow
from runtime.sessions import (
    AlreadyExistsError,
    BaseSessionService,
    GetSessionConfig,
    InMemorySessionService,
    ListSessionsResponse,
    LogSessionService,
    PostgresSessionService,
    SessionNotFoundError,
    SqliteSessionService,
    StaleSessionError,
    session_service_from_url,
)
from runtime.tools import (
    AgentTool,
    BaseTool,
    BaseToolset,
    FunctionTool,
    LoadMemoryTool,
    LongRunningFunctionTool,
    PreloadMemoryTool,
    ToolContext,
    TransferToAgentTool,
    build_function_declaration,
    load_memory,
    preload_memory,
    transfer_to_agent,
)

__all__ = [
    "BaseEventsSummarizer",
    "Event",
    "EventActions",
    "EventsCompactionConfig",
    "LlmEventSummarizer",
    "ReplayReport",
    "ReplayTurn",
    "Agent",
    "AgentTool",
    "AlreadyExistsError",
    "App",
    "BaseAgent",
    "BaseArtifactService",
    "BaseLlm",
    "BaseMemoryService",
    "BasePlugin",
    "BaseSessionService",
    "BaseTool",
    "BaseToolset",
    "CallbackContext",
    "Context",
    "FunctionTool",
    "Gemini",
    "GetSessionConfig",
    "InMemoryRunner",
    "InMemorySessionService",
    "InstructionProvider",
    "InstructionVariableError",
    "InvocationContext",
    "LLMRegistry",
    "ListSessionsResponse",
    "LlmAgent",
    "LlmRequest",
    "LlmResponse",
    "LoadMemoryTool",
    "LogSessionService",
    "LoggingPlugin",
    "LongRunningFunctionTool",
    "LoopAgent",
    "MemoryEntry",
    "ModelConnectionError",
    "ParallelAgent",
    "PluginError",
    "PluginManager",
    "PostgresSessionService",
    "PreloadMemoryTool",
    "ReadonlyContext",
    "ResumabilityConfig",
    "RunConfig",
    "Runner",
    "ScriptExhaustedError",
    "ScriptedLlm",
    "SearchMemoryResponse",
    "SequentialAgent",
    "ServiceNotConfiguredError",
    "SessionNotFoundError",
    "SqliteSessionService",
    "StaleSessionError",
    "StreamingAggregator",
    "StreamingMode",
    "ToolConfirmation",
    "ToolContext",
    "Workflow",
    "TransferToAgentTool",
    "build_function_declaration",
    "load_memory",
    "new_invocation_context_id",
    "preload_memory",
    "session_service_from_url",
    "transfer_to_agent",
]
