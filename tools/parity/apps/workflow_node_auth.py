"""A node with `auth_config` asks the client for an API key before its function runs, waits, and
runs again with the key the answer gave (`ctx.get_auth_response`); the next node reports what it
did. The answer itself is not compared: Chronicle stores a reference to the key, never the key
(docs/workflows.md), so only what the run yields is (SHOW_PATHS, not SHOW_NODES)."""

from fastapi.openapi.models import APIKey, APIKeyIn
from google.adk import Context, Event, Workflow
from google.adk.auth.auth_credential import AuthCredential, AuthCredentialTypes
from google.adk.auth.auth_tool import AuthConfig
from google.adk.workflow import node

SHOW_PATHS = True

bank_key = AuthConfig(
    auth_scheme=APIKey(**{"in": APIKeyIn.query, "name": "key"}),
    raw_auth_credential=AuthCredential(auth_type=AuthCredentialTypes.API_KEY, api_key="unset"),
    credential_key="bank_key",
)


@node(auth_config=bank_key, rerun_on_resume=True)
def balance(ctx: Context):
    key = ctx.get_auth_response(bank_key).api_key
    return {"account": "main", "balance": 120, "key_ends": key[-2:]}


def report(node_input: dict):
    yield Event(message=f"{node_input['account']}: {node_input['balance']} (key …{node_input['key_ends']})")


root_agent = Workflow(name="banking", edges=[("START", balance, report)])

TURNS = ["show my balance", {"respond": {"result": "sk-live-42"}}]
