"""A tool placed in a workflow's edges (a tool node) asks for an API key itself
(`tool_context.request_credential`): the node waits with ADK's `adk_request_credential` request,
and the answer runs the tool again, which finds the key (`get_auth_response`). A second tool node
fails, and a plugin's on_tool_error_callback answers for it. As in workflow_node_auth, the stored
answer is not compared (Chronicle keeps a reference to the key), only what the run yields."""

from fastapi.openapi.models import APIKey, APIKeyIn
from google.adk import Event, Workflow
from google.adk.apps import App
from google.adk.auth.auth_credential import AuthCredential, AuthCredentialTypes
from google.adk.auth.auth_tool import AuthConfig
from google.adk.plugins.base_plugin import BasePlugin
from google.adk.tools import FunctionTool, ToolContext

SHOW_PATHS = True

weather_key = AuthConfig(
    auth_scheme=APIKey(**{"in": APIKeyIn.query, "name": "appid"}),
    raw_auth_credential=AuthCredential(auth_type=AuthCredentialTypes.API_KEY, api_key="unset"),
    credential_key="weather_key",
)


def forecast(city: str, tool_context: ToolContext) -> dict:
    """The forecast for a city."""
    credential = tool_context.get_auth_response(weather_key)
    if credential is None:
        tool_context.request_credential(weather_key)
        return {"pending": "a key is needed"}
    tool_context.state["forecast"] = f"{city}: clear (key …{credential.api_key[-2:]})"
    return {"city": city}


def warnings(city: str) -> dict:
    """Weather warnings for a city."""
    raise ConnectionError(f"the warnings service for {city} is down")


class Fallback(BasePlugin):
    async def on_tool_error_callback(self, *, tool, tool_args, tool_context, error):
        return {"warnings": [], "note": f"{type(error).__name__}: {error}"}


def report(node_input: dict, forecast: str):
    yield Event(message=f"{forecast}; warnings: {node_input}")


app = App(
    name="parity",
    root_agent=Workflow(name="weather", edges=[
        ("START", FunctionTool(forecast), FunctionTool(warnings), report),
    ]),
    plugins=[Fallback(name="fallback")],
)

TURNS = ["Oslo", {"respond": {"result": "k-77"}}]
