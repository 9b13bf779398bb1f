"""OpenAPIToolset: the declarations the model gets from an OpenAPI spec (path, query and header
parameters, a `$ref`'d and a nested request body, camelCase and keyword names, enums, arrays, an
operation without an operationId) and the REST answers it reads back. The API is a small real HTTP
server on a loopback port, started with the app."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from google.adk.agents import LlmAgent
from google.adk.tools.openapi_tool import OpenAPIToolset
from google.adk.tools.openapi_tool.auth.auth_helpers import token_to_scheme_credential

from tools.parity.apps.rule_model import call, model, say


class _Api(BaseHTTPRequestHandler):
    def _answer(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):  # noqa: N802 - http.server's naming
        if self.headers.get("X-Api-Key") != "demo-key":
            return self._answer(401, {"detail": "bad key"})
        self._answer(200, {"path": self.path, "owner": self.headers.get("X-Owner")})

    def do_POST(self):  # noqa: N802
        length = int(self.headers.get("Content-Length") or 0)
        self._answer(201, {"created": json.loads(self.rfile.read(length) or b"null")})

    def log_message(self, *args):
        pass


_server = ThreadingHTTPServer(("127.0.0.1", 0), _Api)
threading.Thread(target=_server.serve_forever, daemon=True).start()
BASE_URL = f"http://127.0.0.1:{_server.server_address[1]}"

SPEC = {
    "openapi": "3.0.3",
    "info": {"title": "Pet store", "version": "1"},
    "servers": [{"url": BASE_URL}],
    "paths": {
        "/pets/{petId}": {
            "parameters": [{"name": "X-Owner", "in": "header", "schema": {"type": "string"}}],
            "get": {
                "operationId": "getPetById", "summary": "Find a pet.", "description": "Returns one pet by its id.",
                "parameters": [
                    {"name": "petId", "in": "path", "required": True, "description": "The pet's id.",
                     "schema": {"type": "integer", "format": "int64"}},
                    {"name": "from", "in": "query", "schema": {"type": "string", "enum": ["shelter", "home"]}},
                    {"name": "fields", "in": "query", "schema": {"type": "array", "items": {"type": "string"}}},
                ],
                "responses": {"200": {"description": "A pet.", "content": {"application/json": {
                    "schema": {"$ref": "#/components/schemas/Pet"}}}}},
            },
        },
        "/pets": {"post": {
            "summary": "Add a pet.",
            "requestBody": {"required": True, "content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/NewPet"}}}},
            "responses": {"201": {"description": "Added."}},
        }},
        "/pets/search": {"post": {
            "operationId": "searchPets", "description": "Search with a list of tags.",
            "requestBody": {"content": {"application/json": {"schema": {
                "type": "array", "items": {"type": "string"}}}}},
            "responses": {"200": {"description": "Matches."}},
        }},
    },
    "components": {"schemas": {
        "Pet": {"type": "object", "properties": {"id": {"type": "integer"}, "name": {"type": "string"}}},
        "NewPet": {"type": "object", "required": ["name"], "properties": {
            "name": {"type": "string", "description": "What to call it."},
            "birthDate": {"type": "string", "format": "date"},
            "owner": {"type": "object", "properties": {"email": {"type": "string"}}},
            "tags": {"type": "array", "items": {"type": "string"}},
        }},
    }},
}


def rule(text, response, request):
    if response is not None:
        return say("Done: " + json.dumps(response.response, sort_keys=True))
    if "find" in text:
        return call("get_pet_by_id", pet_id=7, param_from="home", fields=["name", "id"], x_owner="ann")
    if "add" in text:
        return call("pets_post", name="Tom", birth_date="2020-01-02", owner={"email": "a@b.c"}, tags=["cat"])
    if "search" in text:
        return call("search_pets", array=["small", "calm"])
    return say("Hello.")


scheme, credential = token_to_scheme_credential("apikey", "header", "X-Api-Key", "demo-key")
root_agent = LlmAgent(name="clerk", model=model(rule), instruction="Look after the pets.", tools=[
    OpenAPIToolset(spec_dict=SPEC, auth_scheme=scheme, auth_credential=credential, allow_private_network_access=True)])

TURNS = ["hello", "find pet 7", "add Tom", "search small calm pets"]
