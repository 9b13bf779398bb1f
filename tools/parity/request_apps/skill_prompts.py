"""What a SkillToolset tells the model in its other shapes: the catalog in the instruction
(EAGER), a tool-name prefix, no code executor (scripts can only be read), a tool_filter (the
missing tools named as unavailable) and a registry searched and loaded from."""

from google.adk.agents import LlmAgent, SequentialAgent
from google.adk.skills import SkillRegistry, models
from google.adk.tools.skill_toolset import SkillDiscoveryMode, SkillToolset

from tools.parity.apps.rule_model import call, say


def skill(name: str, **scripts: str) -> models.Skill:
    return models.Skill(
        frontmatter=models.Frontmatter(name=name, description=f"Knows about {name}."),
        instructions=f"Answer questions on {name}.",
        resources=models.Resources(scripts={f"{n}.sh": models.Script(src=src) for n, src in scripts.items()}),
    )


class Shelf(SkillRegistry):
    """A registry of two skills, one of them also a local skill's name."""

    SKILLS = {"tides": skill("tides"), "maps": skill("maps")}

    async def get_skill(self, *, name):
        return self.SKILLS[name]

    async def search_skills(self, *, query):
        return [s.frontmatter for s in self.SKILLS.values()]

    def search_tool_description(self):
        return "Finds skills on the shelf."


def steps(*calls):
    def rule(text, response, request):
        done = sum(1 for c in request.contents for p in c.parts or [] if p.function_response)
        return calls[done] if done < len(calls) else say("ok")

    return rule


from tools.parity.apps.rule_model import model  # noqa: E402

root_agent = SequentialAgent(name="shapes", sub_agents=[
    LlmAgent(name="eager", model=model(steps(call("kit_load_skill", skill_name="weather"))), instruction="Be brief.",
             tools=[SkillToolset(skills=[skill("weather", forecast="echo sun")], tool_name_prefix="kit",
                                 discovery_mode=SkillDiscoveryMode.EAGER)]),
    LlmAgent(name="filtered", model=model(steps(call("search_skills", query="sea"), call("load_skill", skill_name="tides"))),
             instruction="Be brief.",
             tools=[SkillToolset(skills=[skill("maps")], registry=Shelf(),
                                 tool_filter=["load_skill", "load_skill_resource", "search_skills"])]),
])

TURNS = ["what do you know?"]
