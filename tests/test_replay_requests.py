"""The request comparison of conformance replay: what counts as the same request (google-adk
2.13's fields and normalisations) and what does not. Recordings written here, in ADK's YAML shape."""

from __future__ import annotations

import yaml
from google.genai import types

from runtime.agents.llm_context import OTHER_AGENT_PREAMBLE, quote_untrusted
from runtime.models.llm_request import LlmRequest
from runtime.server.replay_requests import comparable, difference, recorded_request

RECORDED = yaml.safe_load("""\
model: gemini-2.5-flash
contents:
  - role: user
    parts: [{text: Book a table for two.}]
  - role: user
    parts:
      - text: 'For context:'
      - text: '[host] said: Which day?'
config:
  http_options: {headers: {user-agent: google-adk/1.16.0}}
  labels: {adk_agent_name: booker}
  system_instruction: You book tables.
  temperature: 0.9
  tools:
    - function_declarations:
        - name: book
          description: "Books a table.\\n  "
          parameters:
            type: OBJECT
            title: ignored
            properties:
              guests: {type: INTEGER, description: how many}
              day: {type: STRING, nullable: true}
            required: [guests]
          response: {type: OBJECT}
        - name: transfer_to_agent
          description: Any wording at all.
          parameters:
            type: OBJECT
            properties: {agent_name: {type: STRING, enum: [host]}}
            required: [agent_name]
live_connect_config: {input_audio_transcription: {}}
""")


def _current(**changes) -> LlmRequest:
    """The request as a runtime would build it today: JSON schemas, 2.13's fenced relay, no labels."""
    config = types.GenerateContentConfig(
        system_instruction="You book tables.",
        temperature=0.9,
        tools=[types.Tool(function_declarations=[
            types.FunctionDeclaration(name="book", description="Books a table.", parameters_json_schema={
                "type": "object",
                "properties": {"guests": {"type": "integer"}, "day": {"anyOf": [{"type": "string"}, {"type": "null"}]}},
                "required": ["guests"],
            }),
            types.FunctionDeclaration(
                name="transfer_to_agent", description="Transfer the question to another agent, in 2.13's words.",
                parameters_json_schema={"type": "object", "properties": {"agent_name": {"type": "string", "enum": ["host"]}},
                                        "required": ["agent_name"]}),
        ])],
    )
    relayed = types.Content(role="user", parts=[
        types.Part(text=OTHER_AGENT_PREAMBLE), types.Part(text="[host] said:\n" + quote_untrusted("Which day?")),
    ])
    request = LlmRequest(model="gemini-2.5-flash", contents=[
        types.Content(role="user", parts=[types.Part(text="Book a table for two.")]), relayed,
    ], config=config)
    return request.model_copy(update=changes)


def test_a_request_that_says_the_same_compares_equal():
    assert difference(recorded_request(RECORDED), comparable(_current())) == ""


def test_one_word_changed_in_the_instruction_is_a_difference_that_is_shown():
    changed = _current()
    changed.config.system_instruction = "You book rooms."
    diff = difference(recorded_request(RECORDED), comparable(changed))
    assert "-  \"system_instruction\": \"You book tables.\"" in diff
    assert "+  \"system_instruction\": \"You book rooms.\"" in diff


def test_what_the_model_would_see_differently_counts():
    cases = []
    hotter = _current()
    hotter.config.temperature = 0.2
    cases.append(hotter)
    required = _current()
    required.config.tools[0].function_declarations[0].parameters_json_schema["required"] = ["guests", "day"]
    cases.append(required)
    relayed = _current()
    relayed.contents[1].parts[1].text = "[host] said:\n" + quote_untrusted("Which night?")
    cases.append(relayed)
    fewer = _current(contents=_current().contents[:1])
    cases.append(fewer)
    for request in cases:
        assert difference(recorded_request(RECORDED), comparable(request)) != ""


def test_a_field_chronicle_does_not_model_still_counts():
    recorded = {**RECORDED, "cache_config": {"ttl_seconds": 60}}
    assert "cache_config" in difference(recorded_request(recorded), comparable(_current()))
