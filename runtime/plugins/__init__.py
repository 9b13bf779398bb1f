"""Plugins: App-wide hooks around every run, agent, model call and tool call."""

from runtime.plugins.auto_tracing_plugin import AutoTracingPlugin
from runtime.plugins.base_plugin import BasePlugin
from runtime.plugins.context_filter_plugin import ContextFilterPlugin
from runtime.plugins.debug_logging_plugin import DebugLoggingPlugin
from runtime.plugins.global_instruction_plugin import GlobalInstructionPlugin
from runtime.plugins.logging_plugin import LoggingPlugin
from runtime.plugins.multimodal_tool_results_plugin import MultimodalToolResultsPlugin
from runtime.plugins.plugin_manager import PluginError, PluginManager
from runtime.plugins.reflect_retry_tool_plugin import ReflectAndRetryToolPlugin, TrackingScope
from runtime.plugins.save_files_as_artifacts_plugin import SaveFilesAsArtifactsPlugin

__all__ = [
    "AutoTracingPlugin",
    "BasePlugin",
    "ContextFilterPlugin",
    "DebugLoggingPlugin",
    "GlobalInstructionPlugin",
    "LoggingPlugin",
    "MultimodalToolResultsPlugin",
    "PluginError",
    "PluginManager",
    "ReflectAndRetryToolPlugin",
    "SaveFilesAsArtifactsPlugin",
    "TrackingScope",
]
