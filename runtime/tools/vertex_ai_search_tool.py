"""VertexAiSearchTool: Gemini's built-in retrieval over a Vertex AI Search data store or engine
(google-adk 2.13's `tools.vertex_ai_search_tool`). The model runs the search, so it needs Gemini
on Vertex AI; `bypass_multi_tools_limit=True`, which ADK serves by calling the Discovery Engine
API from the process, is refused at use with a VertexAiSearchUnavailableError."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from google.genai import types

from domain.errors import InvalidArgumentError
from runtime.cloud_services import CloudServiceUnavailableError
from runtime.tools.builtin import BuiltInTool, require_gemini

if TYPE_CHECKING:
    from runtime.contexts import ReadonlyContext
    from runtime.models import LlmRequest
    from runtime.tools.tool_context import ToolContext


class VertexAiSearchUnavailableError(CloudServiceUnavailableError):
    """The search needs Google Cloud's Discovery Engine API, which Chronicle does not call."""


class VertexAiSearchTool(BuiltInTool):
    def __init__(
        self,
        *,
        data_store_id: Optional[str] = None,
        data_store_specs: Optional[list[types.VertexAISearchDataStoreSpec]] = None,
        search_engine_id: Optional[str] = None,
        filter: Optional[str] = None,
        max_results: Optional[int] = None,
        bypass_multi_tools_limit: bool = False,
        name: Optional[str] = None,
        description: Optional[str] = None,
    ):
        if (data_store_id is None) == (search_engine_id is None):
            raise InvalidArgumentError("Either data_store_id or search_engine_id must be specified.")
        if data_store_specs is not None and search_engine_id is None:
            raise InvalidArgumentError("search_engine_id must be specified if data_store_specs is specified.")
        super().__init__(name=name or "vertex_ai_search", field="retrieval", value=types.Retrieval(),
                         label="Vertex AI search tool")
        self.description = description or "vertex_ai_search"
        self.data_store_id = data_store_id
        self.data_store_specs = data_store_specs
        self.search_engine_id = search_engine_id
        self.filter = filter
        self.max_results = max_results
        self.bypass_multi_tools_limit = bypass_multi_tools_limit

    def _build_vertex_ai_search_config(self, readonly_context: ReadonlyContext) -> types.VertexAISearch:
        """The search settings of one request; override it to choose them from the session."""
        return types.VertexAISearch(
            datastore=self.data_store_id,
            data_store_specs=self.data_store_specs,
            engine=self.search_engine_id,
            filter=self.filter,
            max_results=self.max_results,
        )

    async def process_llm_request(self, *, tool_context: ToolContext, llm_request: LlmRequest) -> None:
        if self.bypass_multi_tools_limit:
            raise VertexAiSearchUnavailableError(
                "VertexAiSearchTool(bypass_multi_tools_limit=True) searches through Google Cloud's "
                "Discovery Engine API from the process, which Chronicle does not call. Leave "
                "bypass_multi_tools_limit off: Gemini on Vertex AI then runs the search itself."
            )
        require_gemini(llm_request.model, self.label)
        search = self._build_vertex_ai_search_config(tool_context)
        tool = types.Tool(retrieval=types.Retrieval(vertex_ai_search=search))
        llm_request.config.tools = [*(llm_request.config.tools or []), tool]
