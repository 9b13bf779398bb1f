"""Gemini through the real google-genai SDK; the base URL comes from $GOOGLE_GEMINI_BASE_URL."""

from runtime import Gemini, LlmAgent, ToolContext


def get_weather(city: str, tool_context: ToolContext) -> dict:
    """Current weather in a city.

    Args:
      city: The city's name.
    """
    tool_context.state["user:last_city"] = city
    return {"city": city, "forecast": "sunny", "celsius": 24}


root_agent = LlmAgent(
    name="forecaster",
    description="Answers weather questions.",
    model=Gemini(model="gemini-2.5-flash", api_key="test-key"),
    instruction="You help with the weather.",
    tools=[get_weather],
)
