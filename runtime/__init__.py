"""Chronicle's runtime: ADK's public API (Runner, agents, tools, callbacks, plugins, models,
sessions) over an event-sourced log.

    from runtime import InMemoryRunner, LlmAgent, FunctionTool

Names are imported on first use: ``import runtime.stores`` (the command line's read commands) must not
import google-genai and every agent.
"""

from domain.lazy_exports import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "domain.events": ["Event", "EventActions"],
    "runtime.agents": ["Agent", "BaseAgent", "InstructionProvider", "InstructionVariableError", "LlmAgent",
        "LoopAgent", "ParallelAgent", "SequentialAgent"],
    "runtime.app": ["App", "ResumabilityConfig"],
    "runtime.compaction": ["BaseEventsSummarizer", "EventsCompactionConfig", "LlmEventSummarizer"],
    "runtime.artifacts.base": ["BaseArtifactService"],
    "runtime.callbacks": ["CallbackContext", "ReadonlyContext"],
    "runtime.contexts": ["Context", "ServiceNotConfiguredError"],
    "runtime.tools.tool_confirmation": ["ToolConfirmation"],
    "runtime.invocation_context": ["InvocationContext", "new_invocation_context_id"],
    "runtime.memory.base": ["BaseMemoryService", "MemoryEntry", "SearchMemoryResponse"],
    "runtime.models": ["BaseLlm", "Gemini", "LLMRegistry", "LlmRequest", "LlmResponse", "ModelConnectionError",
        "ScriptedLlm", "ScriptExhaustedError", "StreamingAggregator", "UnknownModelError"],
    "runtime.plugins": ["BasePlugin", "LoggingPlugin", "PluginError", "PluginManager"],
    "runtime.run_config": ["RunConfig", "StreamingMode"],
    "runtime.replay": ["ReplayReport", "ReplayTurn"],
    "runtime.runner": ["InMemoryRunner", "Runner"],
    "runtime.workflow": ["Workflow"],
    "runtime.sessions": ["AlreadyExistsError", "BaseSessionService", "GetSessionConfig", "InMemorySessionService",
        "ListSessionsResponse", "LogSessionService", "PostgresSessionService", "SessionNotFoundError",
        "SqliteSessionService", "StaleSessionError", "session_service_from_url"],
    "runtime.tools": ["AgentTool", "BaseTool", "BaseToolset", "FunctionTool", "LoadMemoryTool",
        "LongRunningFunctionTool", "PreloadMemoryTool", "ToolContext", "TransferToAgentTool",
        "build_function_declaration", "load_memory", "preload_memory", "transfer_to_agent"],
})
