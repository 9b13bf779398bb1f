"""GoogleSearchAgentTool (google-adk 2.13's `tools.google_search_agent_tool`): Google Search in
an agent of its own, called as a tool, so it can sit beside function tools (Gemini does not
mix its built-in search with function calling in one request)."""

from __future__ import annotations

from typing import Any, Union

from runtime.agents.llm_agent import LlmAgent
from runtime.tools.agent_tool import AgentTool
from runtime.tools.google_search_tool import google_search

# google-adk 2.13's words: the search agent's model reads them.
SEARCH_AGENT_DESCRIPTION = "An agent for performing Google search using built-in search grounding"
SEARCH_AGENT_INSTRUCTION = """
        You are a specialized Google search agent.

        Answer the given search query directly using your built-in Google Search
        grounding capabilities. Do not attempt to invoke a client-side function
        call.
      """


def create_google_search_agent(model: Union[str, Any]) -> LlmAgent:
    """An agent named `google_search_agent` that answers with Gemini's built-in search only."""
    return LlmAgent(
        name="google_search_agent",
        model=model,
        description=SEARCH_AGENT_DESCRIPTION,
        instruction=SEARCH_AGENT_INSTRUCTION,
        tools=[google_search],
    )


class GoogleSearchAgentTool(AgentTool):
    """`agent` (e.g. `create_google_search_agent(model)`) as a tool whose search grounding is
    carried onto the calling agent's answer."""

    def __init__(self, agent: LlmAgent):
        self.agent = agent
        super().__init__(agent=agent, propagate_grounding_metadata=True)
