"""An ADK app whose McpToolset needs a credential, written for google-adk 2.13 as a user writes it
(tests/mcp_auth_side.py runs it on either side; on Chronicle's, `google.adk` is rewritten to
`runtime`, nothing else). `CASES` name each toolset's auth and the turns a user sends: a text, or
{"credential": ...} answering the pending credential request with that AuthCredential."""

from fastapi.openapi.models import APIKey, APIKeyIn, HTTPBearer
from google.adk.agents import LlmAgent
from google.adk.auth.auth_credential import AuthCredential, AuthCredentialTypes, HttpAuth, HttpCredentials
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.adk.tools.mcp_tool import McpToolset, StreamableHTTPConnectionParams
from google.genai import types

API_KEY = "sk-live-9f2c7731"
TOKEN = "tok-4b1d5520"

CASES = {
    # No credential configured: the agent asks for an API key, the answer's key reaches the
    # server as X-API-Key, and the next turn finds it in the credential service.
    "api_key": dict(
        auth=dict(auth_scheme=APIKey(**{"in": APIKeyIn.header, "name": "X-API-Key"})),
        turns=["who am I?", {"credential": {"authType": "apiKey", "apiKey": API_KEY}}, "and now?"],
    ),
    # A bearer token configured with the toolset: nobody is asked, every request carries it.
    "bearer": dict(
        auth=dict(
            auth_scheme=HTTPBearer(),
            auth_credential=AuthCredential(
                auth_type=AuthCredentialTypes.HTTP, http=HttpAuth(scheme="bearer", credentials=HttpCredentials(token=TOKEN))
            ),
        ),
        turns=["who am I?", "and now?"],
    ),
}


class WhoAmIModel(BaseLlm):
    """Calls `whoami`, then says what it answered."""

    model: str = "whoami-model"
    requests: list = []

    async def generate_content_async(self, llm_request, stream=False):
        from tools.parity.requests import snapshot

        self.requests.append(snapshot("whoami", llm_request))
        last = llm_request.contents[-1].parts[-1]
        if last.function_response is None:
            part = types.Part(function_call=types.FunctionCall(name="whoami", args={}))
        else:
            part = types.Part(text="You are " + last.function_response.response["content"][0]["text"])
        yield LlmResponse(content=types.Content(role="model", parts=[part]))


def agent(url: str, case: str) -> LlmAgent:
    toolset = McpToolset(
        connection_params=StreamableHTTPConnectionParams(url=url), tool_filter=["whoami"], **CASES[case]["auth"]
    )
    return LlmAgent(name="bank", model=WhoAmIModel(requests=[]), instruction="Say who the user is.", tools=[toolset])
