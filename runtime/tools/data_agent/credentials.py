"""Credentials of the data agent tools: BigQuery's scope unless others are given."""

from __future__ import annotations

from pydantic import model_validator

from runtime.tools.google_credentials import BaseGoogleCredentialsConfig

DATA_AGENT_TOKEN_CACHE_KEY = "data_agent_token_cache"
DATA_AGENT_DEFAULT_SCOPE = ["https://www.googleapis.com/auth/bigquery"]


class DataAgentCredentialsConfig(BaseGoogleCredentialsConfig):
    @model_validator(mode="after")
    def _default_scope(self) -> "DataAgentCredentialsConfig":
        if not self.scopes:
            self.scopes = DATA_AGENT_DEFAULT_SCOPE
        self._token_cache_key = DATA_AGENT_TOKEN_CACHE_KEY
        return self
