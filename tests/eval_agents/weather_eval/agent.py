"""A weather agent with a rule-driven model, for the eval tests: the same file runs on google-adk 2.13
(in .venv-adk) and on Chronicle. EVAL_AGENT_VARIANT=changed makes it call the tool with other arguments
for Rome, answer Paris in other words, and call the tool for Tokyo twice. Its tool raises for Atlantis."""

import os

try:  # google-adk's names where it is installed, Chronicle's (the same names) elsewhere
    from google.adk.agents import LlmAgent
    from google.adk.models.base_llm import BaseLlm
    from google.adk.models.llm_response import LlmResponse
except ImportError:
    from runtime.agents import LlmAgent
    from runtime.models import BaseLlm, LlmResponse
from google.genai import types

FORECASTS = {"Paris": "sunny", "Rome": "rain", "Tokyo": "晴れ", "Bangkok": "ฝนตก"}


def get_weather(city: str, unit: str = "C") -> dict:
    """Returns the weather in a city."""
    if city == "Atlantis":
        raise ValueError("Atlantis has no weather service")
    return {"city": city, "forecast": FORECASTS.get(city.title(), "unknown"), "unit": unit}


def _answer(city: str, forecast: str, changed: bool) -> str:
    if city == "Tokyo":
        return f"東京の天気は{forecast}です"
    if city == "Bangkok":
        return f"กรุงเทพ {forecast} วันนี้"
    if changed and city == "Paris":
        return f"Expect {forecast} skies over Paris; enjoy your walks."
    return f"The weather in {city} is {forecast} today."


class RuleModel(BaseLlm):
    model: str = "rule-model"

    async def generate_content_async(self, llm_request, stream: bool = False):
        changed = os.environ.get("EVAL_AGENT_VARIANT") == "changed"
        last = llm_request.contents[-1]
        results = [p.function_response for p in last.parts or [] if p.function_response]
        usage = types.GenerateContentResponseUsageMetadata(
            prompt_token_count=10 * len(llm_request.contents), candidates_token_count=7, total_token_count=0)
        if results:
            r = results[-1].response
            text = _answer(r["city"].title(), r["forecast"], changed)
            content = types.Content(role="model", parts=[types.Part(text=text)])
        else:
            said = " ".join(p.text for p in last.parts or [] if p.text)
            city = said.rstrip("?!. ").split()[-1].title()
            if city not in FORECASTS and city != "Atlantis":
                content = types.Content(role="model", parts=[types.Part(text="Which city do you mean?")])
            else:
                args = [{"city": city}]
                if changed and city == "Rome":
                    args = [{"city": city, "unit": "F"}]
                if changed and city == "Tokyo":
                    args = [{"city": city}, {"city": city, "unit": "F"}]
                content = types.Content(role="model", parts=[
                    types.Part(function_call=types.FunctionCall(name="get_weather", args=a)) for a in args])
        yield LlmResponse(content=content, usage_metadata=usage, model_version="rule-model-001")


root_agent = LlmAgent(name="forecaster", model=RuleModel(), instruction="Tell the weather.", tools=[get_weather])
