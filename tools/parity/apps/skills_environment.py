"""A SkillToolset running scripts in a LocalEnvironment: the skill's files are written into the
environment's skills folder on first use, and the model's command runs there."""

import pathlib
import tempfile

from google.adk.agents import LlmAgent
from google.adk.environment import LocalEnvironment
from google.adk.skills import load_skill_from_dir
from google.adk.tools.skill_toolset import SkillToolset

from tools.parity.apps.rule_model import call, model
from tools.parity.apps.skills import FOLDERS, steps_rule

# A fixed folder: its path is in the instruction the model gets, on both sides.
WORKING_DIR = pathlib.Path(tempfile.gettempdir()) / "chronicle-parity-skills-environment"

STEPS = {
    "convert 2 km": [
        call("load_skill", skill_name="unit-converter"),
        call("run_skill_script", skill_name="unit-converter", file_path="scripts/convert.py",
             command="cd skills/unit-converter && python3 scripts/convert.py --km 2"),
    ],
    "run it wrongly": [
        call("run_skill_script", skill_name="unit-converter", file_path="scripts/convert.py"),
        call("run_skill_script", skill_name="unit-converter", file_path="scripts/convert.py",
             command="cd skills/unit-converter && python3 scripts/convert.py --miles 2"),
    ],
}

root_agent = LlmAgent(
    name="sandboxed",
    model=model(steps_rule(STEPS)),
    instruction="Convert distances.",
    tools=[SkillToolset(skills=[load_skill_from_dir(FOLDERS / "unit-converter")],
                        environment=LocalEnvironment(working_dir=WORKING_DIR))],
)

TURNS = list(STEPS)
