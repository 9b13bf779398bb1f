"""A model reads the tools' declarations and says which tools create and which read each
stateful identifier, so simulated answers stay consistent (a ticket created is then found)."""

from __future__ import annotations

import json
import logging
from typing import List

from google.genai import types as genai_types

from runtime.tools.base_tool import BaseTool
from runtime.tools.environment_simulation.simulation_model import SimulationModel, parse_json
from runtime.tools.environment_simulation.tool_connection_map import ToolConnectionMap

logger = logging.getLogger("google_adk." + __name__)

ANALYSIS_PROMPT = """You analyse a set of tools to find the identifiers they share state through.

A creating tool makes a new resource or changes one (create_account, update_price, cancel_order):
it produces or changes the state behind an identifier. A consuming tool only reads a resource by
its identifier (get_user, list_events, find_order). For example create_ticket creates ticket_id,
get_ticket consumes it, and list_tickets(user_id) consumes user_id.

The tools' declarations:
{tool_schemas_json}

Answer with one JSON object and nothing else: {{"stateful_parameters": [...]}}, each item with
"parameter_name" (e.g. "ticket_id"), "creating_tools" (names) and "consuming_tools" (names).
"""


class ToolConnectionAnalyzer:
    def __init__(self, llm_name: str, llm_config: genai_types.GenerateContentConfig):
        self._model = SimulationModel(llm_name, llm_config)

    async def analyze(self, tools: List[BaseTool]) -> ToolConnectionMap:
        """The tools' connections (none when the model's answer is not JSON)."""
        schemas = [d.model_dump(exclude_none=True) for tool in tools if (d := tool._get_declaration()) is not None]
        text = await self._model.ask(ANALYSIS_PROMPT.format(tool_schemas_json=json.dumps(schemas, indent=2)))
        try:
            answer = parse_json(text)
        except json.JSONDecodeError as exc:
            logger.warning(
                "Failed to parse tool connection analysis from LLM. Proceeding without connection map. "
                "Error: %s\nLLM Output:\n%s", exc, text,
            )
            return ToolConnectionMap(stateful_parameters=[])
        return ToolConnectionMap.model_validate(answer)
