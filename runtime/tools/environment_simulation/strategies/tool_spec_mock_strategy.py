"""A model plays the tool: it answers from the tool's declaration, the identifiers created so
far, and any environment data or prior trace; what a creating tool answers is remembered."""

from __future__ import annotations

import json
from typing import Any, Dict, Optional

from google.genai import types as genai_types

from runtime.tools.base_tool import BaseTool
from runtime.tools.environment_simulation.simulation_model import SimulationModel, parse_json
from runtime.tools.environment_simulation.strategies.base import MockStrategy
from runtime.tools.environment_simulation.tool_connection_map import ToolConnectionMap

MOCK_PROMPT = """You simulate a tool. Answer its call with a realistic JSON response that stays
consistent with the state shared between the tools.
{environment_data_snippet}{tracing_snippet}
How the tools connect through stateful identifiers:
{tool_connection_map_json}

The state of every stateful identifier so far:
{state_store_json}

The call to answer:
Tool Name: {tool_name}
Tool Description: {tool_description}
Tool Schema: {tool_schema_json}
Tool Arguments: {tool_arguments_json}

1. Decide from the connection map whether the tool creates or consumes each identifier.
2. A consuming call whose identifier is not in the state gets a realistic error (e.g. 404 Not
   Found); otherwise answer from the state, the environment data and the trace.
3. A creating call makes a new unique identifier (e.g. a random ticket_id) and includes it.
4. Use the environment data and the trace, if given, to keep the answer realistic and in line
   with how the tool behaved before.
5. Answer with the JSON object only, starting with '{{' and ending with '}}'.
"""

ENVIRONMENT_SNIPPET = """
Environment data (e.g. a database extract) to answer from:
<environment_data>
{environment_data}
</environment_data>
"""

TRACING_SNIPPET = """
A prior run's tool calls and responses, to answer in line with:
<tracing>
{tracing}
</tracing>
"""


def _find_value_by_key(data: object, key: str) -> object:
    """The first value under `key` anywhere in nested dicts and lists, else None."""
    if isinstance(data, dict):
        if key in data:
            return data[key]
        children = list(data.values())
    elif isinstance(data, list):
        children = data
    else:
        return None
    for child in children:
        found = _find_value_by_key(child, key)
        if found is not None:
            return found
    return None


class ToolSpecMockStrategy(MockStrategy):
    def __init__(self, llm_name: str, llm_config: genai_types.GenerateContentConfig):
        self._model = SimulationModel(llm_name, llm_config)

    async def mock(
        self,
        tool: BaseTool,
        args: Dict[str, Any],
        tool_context: Any,
        tool_connection_map: Optional[ToolConnectionMap],
        state_store: Dict[str, Any],
        environment_data: Optional[str] = None,
        tracing: Optional[str] = None,
    ) -> Dict[str, Any]:
        declaration = tool._get_declaration()
        if not declaration:
            return {"status": "error", "error_message": "Could not get tool declaration."}
        prompt = MOCK_PROMPT.format(
            environment_data_snippet=ENVIRONMENT_SNIPPET.format(environment_data=environment_data) if environment_data else "",
            tracing_snippet=TRACING_SNIPPET.format(tracing=tracing) if tracing else "",
            tool_connection_map_json=(
                json.dumps(tool_connection_map.model_dump(exclude_none=True), indent=2) if tool_connection_map else "''"
            ),
            state_store_json=json.dumps(state_store, indent=2, default=str),
            tool_name=tool.name,
            tool_description=tool.description,
            tool_schema_json=json.dumps(declaration.model_dump(exclude_none=True), indent=2),
            tool_arguments_json=json.dumps(args, indent=2, default=str),
        )
        text = await self._model.ask(prompt)
        try:
            answer = parse_json(text)
        except json.JSONDecodeError:
            return {"status": "error", "error_message": "Failed to generate valid JSON mock response.", "llm_output": text}
        if not isinstance(answer, dict) or not all(isinstance(k, str) for k in answer):
            return {"status": "error", "error_message": "Generated mock response was not a JSON object.", "llm_output": text}
        for param in tool_connection_map.creates(tool.name) if tool_connection_map else []:
            value = _find_value_by_key(answer, param.parameter_name)
            if value is not None:  # remembered, so a later consuming call finds it
                state_store.setdefault(param.parameter_name, {})[value] = answer
        return answer
