"""Skill lifecycles (SkillLifecycleConfig, the SKILL_LIFECYCLE switch): bounded skills past the cap
give way, an ephemeral skill's tool is gone the next turn, unload_skill releases a skill (its
instructions become a notice in later requests) and refuses one that is not active."""

from google.adk.agents import LlmAgent
from google.adk.features import FeatureName, override_feature_enabled
from google.adk.skills import models
from google.adk.tools.skill_toolset import SkillLifecycleConfig, SkillLifecycleMode, SkillToolset

from tools.parity.apps.rule_model import call, model
from tools.parity.apps.skills import steps_rule

override_feature_enabled(FeatureName.SKILL_LIFECYCLE, True)


def tool_a() -> str:
    """Alpha's tool."""
    return "a"


def tool_g() -> str:
    """Gamma's tool."""
    return "g"


def skill(name: str, tools: list) -> models.Skill:
    return models.Skill(
        frontmatter=models.Frontmatter(name=name, description=f"The {name} skill.", metadata={"adk_additional_tools": tools}),
        instructions=f"Follow {name}.",
    )


STEPS = {
    "load alpha": [call("load_skill", skill_name="alpha"), call("tool_a")],
    "load beta": [call("load_skill", skill_name="beta")],
    "load gamma": [call("load_skill", skill_name="gamma"), call("tool_g")],
    "unload beta": [call("unload_skill", skill_name="beta")],
    "unload beta again": [call("unload_skill", skill_name="beta"), call("load_skill", skill_name="delta")],
}

root_agent = LlmAgent(
    name="cycler",
    model=model(steps_rule(STEPS)),
    instruction="Use skills.",
    tools=[
        SkillToolset(
            skills=[skill("alpha", ["tool_a"]), skill("beta", []), skill("gamma", ["tool_g"])],
            additional_tools=[tool_a, tool_g],
            lifecycle_config=SkillLifecycleConfig(
                default_mode=SkillLifecycleMode.BOUNDED,
                max_active_skills=1,
                skill_overrides={"gamma": SkillLifecycleMode.EPHEMERAL},
            ),
        )
    ],
)

TURNS = list(STEPS)
