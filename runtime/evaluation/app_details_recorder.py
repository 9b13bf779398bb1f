"""Records, for a judge, what each agent was told in a turn: its instructions and tools as its first model
request of the turn carried them. A plugin on the eval's Runner, added only when a metric reads them; it
changes nothing the agent does or the log records."""

from __future__ import annotations

from typing import Optional

from runtime.plugins.base_plugin import BasePlugin

from .app_details import AgentDetails, AppDetails


class AppDetailsRecorder(BasePlugin):
    def __init__(self) -> None:
        super().__init__(name="chronicle_eval_app_details")
        self._by_invocation: dict[str, AppDetails] = {}

    async def before_model_callback(self, *, callback_context, llm_request) -> None:
        details = self._by_invocation.setdefault(callback_context.invocation_id, AppDetails())
        name = callback_context.agent_name
        if name not in details.agent_details:
            details.agent_details[name] = AgentDetails(
                name=name, instructions=llm_request.config.system_instruction or "",
                tool_declarations=list(llm_request.config.tools or []))
        return None

    def app_details(self, invocation_id: str) -> Optional[AppDetails]:
        return self._by_invocation.pop(invocation_id, AppDetails())
