"""Settings of the data agent tools (as google-adk 2.13 has them)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class DataAgentToolConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    max_query_result_rows: int = 50
    location: str | None = None
    api_endpoint: str | None = None
    data_agent_modification_timeout_seconds: int = Field(default=60, gt=0)
    data_agent_modification_poll_interval_seconds: int = Field(default=2, gt=0)
    enable_data_agent_modification: bool = False  # create/update/delete tools only when True
