"""Which tools create, and which read, each stateful identifier (e.g. a ticket_id)."""

from __future__ import annotations

from typing import List

from pydantic import BaseModel


class StatefulParameter(BaseModel):
    parameter_name: str
    creating_tools: List[str]
    consuming_tools: List[str]


class ToolConnectionMap(BaseModel):
    stateful_parameters: List[StatefulParameter]

    def creates(self, tool_name: str) -> list[StatefulParameter]:
        """The identifiers `tool_name` creates or changes."""
        return [p for p in self.stateful_parameters if tool_name in p.creating_tools]
