"""The instructions the simulated user's model gets. A Jinja template (google-adk's placeholders, so a
`custom_instructions` written for google-adk renders here too): `stop_signal`, `conversation_plan`,
`conversation_history` and, when the scenario has one, `persona`. The default wording is Chronicle's."""

from __future__ import annotations

from typing import Any, Optional

DEFAULT_INSTRUCTIONS = """\
You are playing the user of an AI agent, to test it. Write the user's next message to the agent, and nothing
else: no quotes, no explanation, no name before it.

Follow this plan. It says what you want, what you know, and when you are done:
{{ conversation_plan }}
{% if persona %}
Who you are: {{ persona.description }}
{% for behavior in persona.behaviors %}- {{ behavior.name }}: {{ behavior.description }}
{% for rule in behavior.behavior_instructions %}  * {{ rule }}
{% endfor %}{% endfor %}{% endif %}
Rules:
- Say only what the plan gives you; when the agent asks for something the plan does not say, say you do not know.
- Answer the agent's last message; do not repeat a request the agent has already fulfilled.
- When every goal of the plan is met, or the agent clearly cannot meet one, reply with {{ stop_signal }} alone.

The conversation so far:
{{ conversation_history }}
"""

REQUIRED = ("stop_signal", "conversation_plan", "conversation_history")


def _environment():
    from jinja2 import StrictUndefined
    from jinja2.sandbox import SandboxedEnvironment

    return SandboxedEnvironment(undefined=StrictUndefined, keep_trailing_newline=True)


def is_valid_user_simulator_template(template_str: str, required_params: list[str]) -> bool:
    """The template parses and uses every required placeholder."""
    from jinja2 import TemplateSyntaxError, meta

    try:
        used = meta.find_undeclared_variables(_environment().parse(template_str))
    except TemplateSyntaxError:
        return False
    return all(p in used for p in required_params)


def get_llm_backed_user_simulator_prompt(conversation_plan: str, conversation_history: str, stop_signal: str,
                                         custom_instructions: Optional[str] = None,
                                         user_persona: Optional[Any] = None) -> str:
    template = _environment().from_string(custom_instructions or DEFAULT_INSTRUCTIONS)
    values = {"conversation_plan": conversation_plan, "conversation_history": conversation_history,
              "stop_signal": stop_signal}
    if user_persona is not None or custom_instructions is None:
        values["persona"] = user_persona
    return template.render(**values)
