"""Three ready personas under google-adk's ids (EXPERT, NOVICE, EVALUATOR), so a scenario that names one
loads. The wording is Chronicle's own."""

from __future__ import annotations

from .user_simulator_personas import UserBehavior, UserPersona, UserPersonaRegistry

_ON_TOPIC = UserBehavior(
    name="Stay on the plan",
    description="Answers what the agent asks when the plan says; never invents goals outside it.",
    behavior_instructions=["Answer the agent's questions with what the plan gives you.",
                           "If the plan does not say, say you do not know rather than invent it."],
    violation_rubrics=["The user asks for something the plan does not contain."])
_ENDS = UserBehavior(
    name="End when done",
    description="Ends the conversation once every goal of the plan is met, or clearly cannot be.",
    behavior_instructions=["When the plan's goals are all met, send the stop signal alone."],
    violation_rubrics=["The user keeps talking after every goal is met."])


def _persona(id_: str, description: str, *extra: UserBehavior) -> UserPersona:
    return UserPersona(id=id_, description=description, behaviors=[_ON_TOPIC, *extra, _ENDS])


_PERSONAS = [
    _persona("EXPERT", "Knows the domain well; terse and precise; corrects the agent when it is wrong.",
             UserBehavior(name="Correct mistakes", description="Points out a wrong answer once, plainly.",
                          behavior_instructions=["If the agent gets a fact of the plan wrong, correct it."],
                          violation_rubrics=["The user accepts an answer that contradicts the plan."])),
    _persona("NOVICE", "New to the domain; friendly, gives details one at a time, does not correct the agent.",
             UserBehavior(name="One thing at a time", description="Gives one detail per message.",
                          behavior_instructions=["Give one piece of information per message."],
                          violation_rubrics=["The user gives every detail in one message unasked."])),
    _persona("EVALUATOR", "Tests the agent on purpose; follows the plan exactly and notes each failure.",
             UserBehavior(name="Exact plan", description="Follows the plan's steps in order.",
                          behavior_instructions=["Take the plan's steps in order, one per turn."],
                          violation_rubrics=["The user skips or reorders a step of the plan."])),
]


def get_default_persona_registry() -> UserPersonaRegistry:
    registry = UserPersonaRegistry()
    for persona in _PERSONAS:
        registry.register_persona(persona.id, persona)
    return registry
