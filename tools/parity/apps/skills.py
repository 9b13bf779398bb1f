"""Agent Skills: a skill folder loaded from disk and one built in code, offered by a SkillToolset.
The model lists the skills, loads one (which brings its extra tool), reads a text and a binary
resource, runs a Python script (importing a sibling module, reading a reference) and a shell one
through UnsafeLocalCodeExecutor (a file a script writes saved as an artifact), and misses a resource twice (the second miss says stop)."""

import pathlib

from google.adk.agents import LlmAgent
from google.adk.code_executors.unsafe_local_code_executor import UnsafeLocalCodeExecutor
from google.adk.skills import load_skill_from_dir, models
from google.adk.tools.skill_toolset import SkillToolset

from tools.parity.apps.rule_model import call, model, say

FOLDERS = pathlib.Path(__file__).parent / "skill_folders"


def round_number(value: float, digits: int) -> dict:
    """Rounds a number to some digits."""
    return {"rounded": round(value, digits)}


greeter = models.Skill(
    frontmatter=models.Frontmatter(name="greeter", description="Greets someone by name."),
    instructions="Run `scripts/greet.sh` with `--name <name>`.",
    resources=models.Resources(scripts={
        "greet.sh": models.Script(src='echo "hello $2"\necho "a warning" >&2\n'),
        "card.py": models.Script(src="import os\nos.makedirs('out')\nopen('out/card.txt', 'w').write('Hi Ann')\nprint('written')\n"),
    }),
)

STEPS = {  # the call the model makes after each tool's response, per turn
    "convert 5 km": [
        call("list_skills"),
        call("load_skill", skill_name="unit-converter"),
        call("load_skill_resource", skill_name="unit-converter", file_path="references/factors.md"),
        call("run_skill_script", skill_name="unit-converter", file_path="scripts/convert.py", args={"km": "5"}),
        call("round_number", value=3.106855, digits=2),
    ],
    "show the badge": [call("load_skill_resource", skill_name="unit-converter", file_path="assets/badge.png")],
    "greet Ann": [
        call("load_skill", skill_name="greeter"),
        call("run_skill_script", skill_name="greeter", file_path="greet.sh", args=["--name", "Ann"]),
    ],
    "write a card": [call("run_skill_script", skill_name="greeter", file_path="scripts/card.py")],
    "read the manual": [
        call("load_skill_resource", skill_name="unit-converter", file_path="references/manual.md"),
        call("load_skill_resource", skill_name="unit-converter", file_path="references/guide.md"),
    ],
}


def steps_rule(steps: dict):
    """A rule that plays ``steps[turn]``, one call per model request, then says the last result.
    The turn is the last user text that is one of ``steps`` (a binary file the model loaded comes
    as user text too), its progress the tool responses since."""

    def rule(text, response, request):
        contents = request.contents
        start = max(i for i, c in enumerate(contents) if c.role == "user" and any(p.text in steps for p in c.parts if p.text))
        turn = next(p.text for p in contents[start].parts if p.text in steps)
        done = sum(1 for c in contents[start:] for p in c.parts or [] if p.function_response)
        if done < len(steps[turn]):
            return steps[turn][done]
        return say(f"done: {str(response.response)[:60] if response else 'read it'}")

    return rule


root_agent = LlmAgent(
    name="skilled",
    model=model(steps_rule(STEPS)),
    instruction="You help with skills.",
    tools=[
        SkillToolset(
            skills=[load_skill_from_dir(FOLDERS / "unit-converter"), greeter],
            additional_tools=[round_number],
            code_executor=UnsafeLocalCodeExecutor(timeout_seconds=60),
            save_output_artifacts=True,
        )
    ],
)

TURNS = ["convert 5 km", "show the badge", "greet Ann", "write a card", "read the manual"]
