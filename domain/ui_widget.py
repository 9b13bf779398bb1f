"""UiWidget: what an event asks a UI to render (google-adk 2.13's `events.ui_widget`), e.g. an
MCP app's iframe. Chronicle stores it with the event; its viewer does not render it."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel


class UiWidget(BaseModel):
    model_config = ConfigDict(extra="forbid", alias_generator=to_camel, populate_by_name=True)

    id: str
    provider: str
    """Which renderer the UI uses; 'mcp' is an MCP app iframe."""
    payload: dict[str, Any] = Field(default_factory=dict)
    """What that renderer needs (for 'mcp': resource_uri, tool, tool_args)."""
