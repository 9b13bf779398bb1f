"""Runs the registered plugins' hooks in order; the first non-None result wins."""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Literal, Optional, Sequence

from domain.errors import ChronicleError, InvalidArgumentError
from runtime.plugins.base_plugin import BasePlugin

logger = logging.getLogger("chronicle.plugins")

HOOKS = (
    "on_user_message_callback",
    "before_run_callback",
    "on_event_callback",
    "after_run_callback",
    "before_agent_callback",
    "after_agent_callback",
    "before_model_callback",
    "after_model_callback",
    "on_model_error_callback",
    "before_tool_callback",
    "after_tool_callback",
    "on_tool_error_callback",
    "on_agent_error_callback",
    "on_run_error_callback",
)
PluginCallbackName = Literal[HOOKS]  # ADK's type for a hook's name


class PluginError(ChronicleError, RuntimeError):
    """A plugin hook raised; the message names the plugin and the hook."""


def _hook_failed(plugin: BasePlugin, hook: str, error: Exception) -> PluginError:
    """ADK's message for a hook that raised."""
    return PluginError(f"Error in plugin '{plugin.name}' during '{hook}' callback: {error}")


class PluginManager:
    def __init__(self, plugins: Optional[Sequence[BasePlugin]] = None, close_timeout: float = 5.0):
        self.plugins: list[BasePlugin] = []
        self.close_timeout = close_timeout
        self._skip_closing_plugins = False
        # Per hook, only the plugins that override it: the hot path skips no-op hooks.
        self._by_hook: dict[str, list[BasePlugin]] = {hook: [] for hook in HOOKS}
        for plugin in plugins or []:
            self.register_plugin(plugin)

    def register_plugin(self, plugin: BasePlugin) -> None:
        if not isinstance(plugin, BasePlugin):
            raise InvalidArgumentError(f"Plugins must subclass BasePlugin, got {type(plugin).__name__}")
        if any(p.name == plugin.name for p in self.plugins):
            raise InvalidArgumentError(
                f"Plugin with name '{plugin.name}' already registered. Give each plugin its own name."
            )
        self.plugins.append(plugin)
        for hook in HOOKS:
            if getattr(type(plugin), hook) is not getattr(BasePlugin, hook):
                self._by_hook[hook].append(plugin)

    def get_plugin(self, name: str) -> Optional[BasePlugin]:
        return next((p for p in self.plugins if p.name == name), None)

    def has(self, hook: str) -> bool:
        return bool(self._by_hook[hook])

    async def _run(self, hook: str, **kwargs: Any) -> Optional[Any]:
        for plugin in self._by_hook[hook]:
            try:
                result = await getattr(plugin, hook)(**kwargs)
            except Exception as e:
                raise _hook_failed(plugin, hook, e) from e
            if result is not None:
                return result
        return None

    async def run_on_user_message_callback(self, **kwargs: Any) -> Any:
        return await self._run("on_user_message_callback", **kwargs) if self._by_hook["on_user_message_callback"] else None

    async def run_before_run_callback(self, **kwargs: Any) -> Any:
        return await self._run("before_run_callback", **kwargs) if self._by_hook["before_run_callback"] else None

    async def run_on_event_callback(self, **kwargs: Any) -> Any:
        return await self._run("on_event_callback", **kwargs) if self._by_hook["on_event_callback"] else None

    async def run_after_run_callback(self, **kwargs: Any) -> None:
        # Every plugin's after_run runs: it is for cleanup, there is no result to win.
        for plugin in self._by_hook["after_run_callback"]:
            try:
                await plugin.after_run_callback(**kwargs)
            except Exception as e:
                raise _hook_failed(plugin, "after_run_callback", e) from e

    async def run_before_agent_callback(self, **kwargs: Any) -> Any:
        return await self._run("before_agent_callback", **kwargs) if self._by_hook["before_agent_callback"] else None

    async def run_after_agent_callback(self, **kwargs: Any) -> Any:
        return await self._run("after_agent_callback", **kwargs) if self._by_hook["after_agent_callback"] else None

    async def run_before_model_callback(self, **kwargs: Any) -> Any:
        return await self._run("before_model_callback", **kwargs) if self._by_hook["before_model_callback"] else None

    async def run_after_model_callback(self, **kwargs: Any) -> Any:
        return await self._run("after_model_callback", **kwargs) if self._by_hook["after_model_callback"] else None

    async def run_on_model_error_callback(self, **kwargs: Any) -> Any:
        return await self._run("on_model_error_callback", **kwargs) if self._by_hook["on_model_error_callback"] else None

    async def run_before_tool_callback(self, **kwargs: Any) -> Any:
        return await self._run("before_tool_callback", **kwargs) if self._by_hook["before_tool_callback"] else None

    async def run_after_tool_callback(self, **kwargs: Any) -> Any:
        return await self._run("after_tool_callback", **kwargs) if self._by_hook["after_tool_callback"] else None

    async def run_on_tool_error_callback(self, **kwargs: Any) -> Any:
        return await self._run("on_tool_error_callback", **kwargs) if self._by_hook["on_tool_error_callback"] else None

    async def run_on_agent_error_callback(self, **kwargs: Any) -> None:
        await self._notify("on_agent_error_callback", **kwargs)

    async def run_on_run_error_callback(self, **kwargs: Any) -> None:
        await self._notify("on_run_error_callback", **kwargs)

    async def _notify(self, hook: str, **kwargs: Any) -> None:
        """Tells every plugin, as ADK does: a notification hook has no result, and a plugin that
        fails is logged so that it neither silences the others nor hides the error being reported."""
        for plugin in self._by_hook[hook]:
            try:
                await getattr(plugin, hook)(**kwargs)
            except Exception:  # noqa: BLE001 - the error being reported is what propagates
                logger.exception("Plugin %r failed in %s; the original error propagates.", plugin.name, hook)

    def set_skip_closing_plugins(self, value: bool) -> None:
        """With True, `close()` leaves the plugins open: another component (a parent Runner whose
        plugins this manager shares) owns them and closes them."""
        self._skip_closing_plugins = bool(value)

    async def close(self) -> None:
        """Closes every plugin, each within `close_timeout` seconds; reports failures together."""
        if self._skip_closing_plugins:
            return
        failures = []
        for plugin in self.plugins:
            try:
                await asyncio.wait_for(plugin.close(), timeout=self.close_timeout)
            except asyncio.TimeoutError:
                failures.append(f"'{plugin.name}': TimeoutError (did not close within {self.close_timeout}s)")
            except Exception as e:  # noqa: BLE001 - collect and report all
                failures.append(f"'{plugin.name}': {type(e).__name__} ({e})")
        if failures:
            # ADK's wording first, so code that matches on it keeps working.
            raise PluginError("Failed to close plugins: " + ", ".join(failures))
