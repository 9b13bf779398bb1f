"""Plugins: App-wide hooks around every run, agent, model call and tool call."""

from runtime.plugins.base_plugin import BasePlugin
from runtime.plugins.logging_plugin import LoggingPlugin
from runtime.plugins.plugin_manager import PluginError, PluginManager

__all__ = ["BasePlugin", "LoggingPlugin", "PluginError", "PluginManager"]
