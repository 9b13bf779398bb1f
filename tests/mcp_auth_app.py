"""An ADK app whose McpToolset needs a credential, written for google-adk 2.13 as a user writes it
(tests/mcp_auth_side.py runs it on either side; on Chronicle's, `google.adk` is rewritten to
`runtime`, nothing else). `CASES` name each toolset's auth and the turns a user sends: a text,
{"credential": ...} answering the pending credential request with that AuthCredential, or
{"signed_in": code} answering it as a client does after the user signed in (the request's
credential with the redirect URI the sign-in returned, `?code=<code>&state=<its state>`)."""

from fastapi.openapi.models import (
    APIKey,
    APIKeyIn,
    HTTPBearer,
    OAuth2,
    OAuthFlowAuthorizationCode,
    OAuthFlowClientCredentials,
    OAuthFlows,
)
from google.adk.agents import LlmAgent
from google.adk.apps import App, ResumabilityConfig
from google.adk.auth.auth_credential import AuthCredential, AuthCredentialTypes, HttpAuth, HttpCredentials, OAuth2Auth
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.adk.tools.mcp_tool import McpToolset, StreamableHTTPConnectionParams
from google.genai import types

API_KEY = "sk-live-9f2c7731"
TOKEN = "tok-4b1d5520"

def oauth2_scheme(server: str) -> OAuth2:
    return OAuth2(flows=OAuthFlows(authorizationCode=OAuthFlowAuthorizationCode(
        authorizationUrl=f"{server}/authorize", tokenUrl=f"{server}/token", scopes={"accounts:read": "Read accounts"})))


def client_credentials_scheme(server: str) -> OAuth2:
    return OAuth2(flows=OAuthFlows(clientCredentials=OAuthFlowClientCredentials(
        tokenUrl=f"{server}/token", scopes={"accounts:read": "Read accounts"})))


# The bank app's own OAuth2 client, signing its user in with an authorization code.
SIGN_IN = dict(
    auth_scheme=oauth2_scheme,
    auth_credential=AuthCredential(auth_type=AuthCredentialTypes.OAUTH2, oauth2=OAuth2Auth(
        client_id="bank-app", client_secret="s3cret-bank", redirect_uri="http://localhost:8080/callback")),
)

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
                auth_type=AuthCredentialTypes.HTTP,
                http=HttpAuth(scheme="bearer", credentials=HttpCredentials(token=TOKEN)),
            ),
        ),
        turns=["who am I?", "and now?"],
    ),
    # OAuth2 sign-in: the agent asks the user to open the sign-in URI; the answer's redirect URI
    # holds a code, which the agent's client exchanges at the token endpoint for an access token
    # (tok-ann-7731), carried as a bearer token; the next turn finds the token kept.
    "oauth2": dict(
        auth=SIGN_IN,
        turns=["who am I?", {"signed_in": "ann-7731"}, "and now?"],
    ),
    # The API key case in a resumable app: the request pauses the invocation the same way.
    "api_key_resumable": dict(
        auth=dict(auth_scheme=APIKey(**{"in": APIKeyIn.header, "name": "X-API-Key"})),
        turns=["who am I?", {"credential": {"authType": "apiKey", "apiKey": API_KEY}}, "and now?"],
        resumable=True,
    ),
    # The same, but the token the code buys has expired already: it is refreshed before use.
    "oauth2_expired": dict(
        auth=SIGN_IN,
        turns=["who am I?", {"signed_in": "short-ann-7731"}, "and now?"],
    ),
    # A public client (no secret) signs in with PKCE: the token endpoint checks the verifier.
    "oauth2_public": dict(
        auth=dict(
            auth_scheme=oauth2_scheme,
            auth_credential=AuthCredential(auth_type=AuthCredentialTypes.OAUTH2, oauth2=OAuth2Auth(
                client_id="bank-app", redirect_uri="http://localhost:8080/callback")),
        ),
        turns=["who am I?", {"signed_in": "ann-7731"}, "and now?"],
    ),
    # The client-credentials grant: the agent's client gets a token as itself, nobody is asked.
    "oauth2_client_credentials": dict(
        auth=dict(
            auth_scheme=client_credentials_scheme,
            auth_credential=AuthCredential(auth_type=AuthCredentialTypes.OAUTH2, oauth2=OAuth2Auth(
                client_id="bank-app", client_secret="s3cret-bank")),
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
    auth = dict(CASES[case]["auth"])
    if callable(auth["auth_scheme"]):  # a scheme whose endpoints are the server's
        auth["auth_scheme"] = auth["auth_scheme"](url.rsplit("/", 1)[0])
    toolset = McpToolset(connection_params=StreamableHTTPConnectionParams(url=url), tool_filter=["whoami"], **auth)
    return LlmAgent(name="bank", model=WhoAmIModel(requests=[]), instruction="Say who the user is.", tools=[toolset])


def app(url: str, case: str) -> App:
    """The case's agent as an App (resumable if the case says so)."""
    resumable = ResumabilityConfig(is_resumable=CASES[case].get("resumable", False))
    return App(name="bank", root_agent=agent(url, case), resumability_config=resumable)
