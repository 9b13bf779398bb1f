"""A deterministic model for the parity apps: a rule turns each request into one answer.

The rule sees what the model would see (the request's contents), so a runtime that calls the model
a different number of times, or with a different context, gives a different transcript.
"""

from typing import Any, Callable, Optional

from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.genai import types

from tools.parity.requests import snapshot


SEEN: list = []  # every request's contents, in call order, for the transcript
MAX_CALLS = 200
REQUESTS: list = []  # every whole request as sent, in call order, for `tools.parity.requests`


class RuleModel(BaseLlm):
    model: str = "rule-model"
    label: str = ""  # which of the app's models this is (its rule's name), to read a diff by
    rule: Any = None  # (last_user_text, last_function_response, request) -> types.Content

    async def generate_content_async(self, llm_request, stream: bool = False):
        if len(SEEN) >= MAX_CALLS:
            raise RuntimeError(f"the model was called {MAX_CALLS} times: a rule that never ends its turn?")
        SEEN.append(list(llm_request.contents or []))
        REQUESTS.append(snapshot(self.label, llm_request))
        yield LlmResponse(content=self.rule(last_text(llm_request), last_response(llm_request), llm_request))


def last_text(llm_request) -> str:
    """The last text a user wrote in the request's contents."""
    for content in reversed(llm_request.contents or []):
        if content.role == "user":
            texts = [p.text for p in content.parts or [] if p.text]
            if texts:
                return " ".join(texts)
    return ""


def last_response(llm_request) -> Optional[types.FunctionResponse]:
    """The function response the request ends with, if it ends with one."""
    contents = llm_request.contents or []
    if not contents:
        return None
    for part in contents[-1].parts or []:
        if part.function_response:
            return part.function_response
    return None


def say(text: str) -> types.Content:
    return types.Content(role="model", parts=[types.Part(text=text)])


def call(name: str, **args: Any) -> types.Content:
    return types.Content(role="model", parts=[types.Part(function_call=types.FunctionCall(name=name, args=args))])


def model(rule: Callable[..., types.Content], label: str = "") -> RuleModel:
    return RuleModel(rule=rule, label=label or rule.__name__)
