"""Names google-adk refuses, refused with its error type and words (code and tests match on them):
agent names that are no identifier or are 'user', app names of the wrong shape or 'user'."""

from google.adk.agents import LlmAgent
from google.adk.apps import App
from google.adk.apps.app import validate_app_name
from pydantic import ValidationError

from tools.parity.apps.rule_model import model, say

HEARD: list = []


def refusal(make) -> list:
    try:
        make()
    except ValidationError as error:
        return ["ValidationError", [e["msg"] for e in error.errors()]]
    except ValueError as error:
        return ["ValueError", str(error)]
    return ["accepted"]


for name in ["1st_agent", "my-agent", "user", "", "two words", "café", "ok_agent"]:
    HEARD.append(["agent", name, refusal(lambda: LlmAgent(name=name))])
for name in ["1app", "my app", "user", "", "a.b", "../up", "ok-app_1"]:
    HEARD.append(["app", name, refusal(lambda: App(name=name, root_agent=LlmAgent(name="a")))])
    HEARD.append(["validate_app_name", name, refusal(lambda: validate_app_name(name))])

root_agent = LlmAgent(name="greeter", model=model(lambda text, response, request: say("Hello.")))
TURNS = ["hi"]
