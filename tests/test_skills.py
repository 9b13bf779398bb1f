"""Agent Skills (runtime.skills, runtime.tools.skill_toolset): a skill folder on disk offered to a
real agent through the Runner and the real google-genai client (against the local Gemini-protocol
server), on every store; scripts run in a child interpreter; paths that could leave a skill's
folder refused; bad configuration refused with a typed error. google-adk 2.13 parity (same
events, state and model requests for the same skill folder) is the `skills` app of
tools/parity/apps, run by tests/test_adk_parity.py and tests/test_adk_requests.py."""

from __future__ import annotations

import base64
import importlib
import json
import os
import subprocess
import textwrap

import pytest
from pydantic import ValidationError

from domain.errors import InvalidArgumentError
from runtime.agents import LlmAgent
from runtime.code_executors import UnsafeLocalCodeExecutor
from runtime.models import Gemini
from runtime.runner import Runner
from runtime.skills import SkillPathError, load_skill_from_dir, load_skills_from_dir, models
from runtime.tools.skill_toolset import SkillDiscoveryMode, SkillToolset
from tests.gemini_server import GeminiServer, gemini_server  # noqa: F401 - a fixture, used by name
from tests.rt_helpers import APP, SESSION, USER, new_runner, send, stored

AGENT = "helper"
ACTIVATED = f"_adk_activated_skill_{AGENT}"


def write_skill(root, name="trip-planner", frontmatter_extra="", files=None):
    """A skill folder under ``root``: SKILL.md and ``files`` (path -> str or bytes)."""
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: Plans trips.\n{frontmatter_extra}---\nCall `budget` after the script.\n",
        encoding="utf-8",
    )
    for path, content in (files or {}).items():
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        (target.write_bytes if isinstance(content, bytes) else target.write_text)(content)
    return folder


TRIP_FILES = {
    "references/rates.md": "EUR per day: 80\n",
    "scripts/cost.py": textwrap.dedent(
        """\
        import argparse
        from rates import daily
        parser = argparse.ArgumentParser()
        parser.add_argument("--days", type=int)
        print(daily() * parser.parse_args().days)
        """
    ),
    "scripts/rates.py": "def daily():\n    return int(open('references/rates.md').read().split()[-1])\n",
}


def budget(total: int) -> dict:
    """Says whether a total fits the budget."""
    return {"fits": total <= 500}


def gemini_agent(server: GeminiServer, toolset: SkillToolset) -> LlmAgent:
    model = Gemini(model="gemini-2.5-flash", api_key="k", base_url=server.url)
    return LlmAgent(name=AGENT, model=model, instruction="Plan trips.", tools=[toolset])


def declared(request) -> list[str]:
    return [d["name"] for tool in request.body.get("tools", []) for d in tool.get("functionDeclarations", [])]


def responses(events) -> dict:
    return {r.name: r.response for e in events for r in e.get_function_responses()}


async def test_a_skill_folder_is_loaded_run_and_remembered_through_the_runner_on_every_store(
    store_url, tmp_path, gemini_server: GeminiServer
):
    from runtime.sessions import session_service_from_url

    folder = write_skill(tmp_path / "skills", frontmatter_extra="metadata:\n  adk_additional_tools: [budget]\n",
                         files=TRIP_FILES)
    toolset = SkillToolset(skills=load_skills_from_dir(folder.parent), additional_tools=[budget],
                           code_executor=UnsafeLocalCodeExecutor(timeout_seconds=60))
    gemini_server.reply_function_call("load_skill", {"skill_name": "trip-planner"})
    gemini_server.reply_function_call("run_skill_script",
                                      {"skill_name": "trip-planner", "file_path": "scripts/cost.py", "args": {"days": 5}})
    gemini_server.reply_function_call("budget", {"total": 400})
    gemini_server.reply_text("400 EUR: it fits.")
    sessions = session_service_from_url(store_url)
    try:
        runner = Runner(agent=gemini_agent(gemini_server, toolset), app_name=APP, session_service=sessions)
        await sessions.create_session(app_name=APP, user_id=USER, session_id=SESSION)
        events = await send(runner, "5 days in Rome?")

        got = responses(events)
        assert got["load_skill"]["instructions"] == "Call `budget` after the script."
        assert got["run_skill_script"] == {"skill_name": "trip-planner", "file_path": "scripts/cost.py",
                                           "stdout": "400\n", "stderr": "", "status": "success"}
        assert got["budget"] == {"fits": True}
        first, *_, last = gemini_server.requests
        system = first.body["systemInstruction"]["parts"]
        assert any("You can use specialized 'skills'" in part["text"] for part in system)
        assert declared(first) == ["list_skills", "load_skill", "load_skill_resource", "run_skill_script"]
        assert declared(last)[-1] == "budget"  # offered once the skill that names it was loaded

        session = await sessions.get_session(app_name=APP, user_id=USER, session_id=SESSION)
        assert session.state == {ACTIVATED: ["trip-planner"]}  # no temp: counter reaches the store

        gemini_server.reply_text("Still planned.")
        await send(Runner(agent=gemini_agent(gemini_server, toolset), app_name=APP, session_service=sessions), "and?")
        assert declared(gemini_server.requests[-1])[-1] == "budget"  # the activation outlives the runner
    finally:
        await sessions.close()


async def test_a_binary_resource_reaches_the_model_as_inline_data(tmp_path, gemini_server: GeminiServer):
    png = b"\x89PNG\r\n\x1a\n\x00\xff"
    folder = write_skill(tmp_path, files={"assets/map.png": png})
    toolset = SkillToolset(skills=[load_skill_from_dir(folder)], discovery_mode=SkillDiscoveryMode.EAGER)
    gemini_server.reply_function_call("load_skill_resource", {"skill_name": "trip-planner", "file_path": "assets/map.png"})
    gemini_server.reply_text("A map.")
    runner = await new_runner(gemini_agent(gemini_server, toolset))
    await send(runner, "show the map")
    first, second = gemini_server.requests
    assert "list_skills" not in declared(first)  # eager: the catalog is in the instruction instead
    assert any("<name>\ntrip-planner\n</name>" in p["text"] for p in first.body["systemInstruction"]["parts"])
    injected = second.body["contents"][-1]
    blob = injected["parts"][1]["inlineData"]
    assert injected["role"] == "user" and base64.urlsafe_b64decode(blob["data"]) == png
    assert blob["mime_type"] == "image/png"


async def test_a_second_missing_file_in_one_invocation_tells_the_model_to_stop(tmp_path):
    from runtime.models.scripted import ScriptedLlm

    toolset = SkillToolset(skills=[load_skill_from_dir(write_skill(tmp_path))])
    model = ScriptedLlm([ScriptedLlm.call("load_skill_resource", skill_name="trip-planner", file_path="references/a.md"),
                         ScriptedLlm.call("load_skill_resource", skill_name="trip-planner", file_path="references/b.md"),
                         "Sorry.",
                         ScriptedLlm.call("load_skill_resource", skill_name="trip-planner", file_path="references/c.md"),
                         "Sorry again."])
    runner = await new_runner(LlmAgent(name=AGENT, model=model, tools=[toolset]))
    codes = [r.response["error_code"] for e in await send(runner, "read") for r in e.get_function_responses()]
    assert codes == ["RESOURCE_NOT_FOUND", "RESOURCE_NOT_FOUND_FATAL"]
    codes = [r.response["error_code"] for e in await send(runner, "again") for r in e.get_function_responses()]
    assert codes == ["RESOURCE_NOT_FOUND"]  # counted per invocation
    assert (await stored(runner)).state == {}


async def _run_script(skill: models.Skill, file_path: str, **toolset_args):
    from runtime.models.scripted import ScriptedLlm

    toolset = SkillToolset(skills=[skill], code_executor=UnsafeLocalCodeExecutor(timeout_seconds=30), **toolset_args)
    model = ScriptedLlm([ScriptedLlm.call("run_skill_script", skill_name=skill.name, file_path=file_path), "ok"])
    runner = await new_runner(LlmAgent(name=AGENT, model=model, tools=[toolset]))
    return responses(await send(runner, "run"))["run_skill_script"]


def _skill(references=None, scripts=None) -> models.Skill:
    return models.Skill(
        frontmatter=models.Frontmatter(name="probe", description="Probes."),
        instructions="",
        resources=models.Resources(references=references or {},
                                   scripts={k: models.Script(src=v) for k, v in (scripts or {}).items()}),
    )


@pytest.mark.parametrize("bad_path", ["../../escaped.txt", "/tmp/chronicle-skill-escape.txt", "sub/../../escaped.txt"])
async def test_a_resource_whose_path_leaves_the_skill_folder_stops_the_script_before_anything_is_written(
    bad_path, tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    marker = tmp_path / "ran"
    result = await _run_script(
        _skill(references={"ok.md": "fine", bad_path: "evil"}, scripts={"run.py": f"open({str(marker)!r}, 'w')"}),
        "run.py",
    )
    assert result["status"] == "error" and "PermissionError: Path traversal detected" in result["stderr"]
    assert not marker.exists()
    assert not (tmp_path / "escaped.txt").exists() and not os.path.exists("/tmp/chronicle-skill-escape.txt")


async def test_a_script_path_that_leaves_the_scripts_folder_is_refused():
    result = await _run_script(_skill(scripts={"../run.py": "print('no')"}), "../run.py")
    assert result["error_code"] == "EXECUTION_ERROR" and "Path traversal detected" in result["error"]


def test_a_skill_file_linked_from_outside_its_folder_is_refused_on_load(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("password")
    folder = write_skill(tmp_path / "skills", files={"references/ok.md": "fine"})
    (folder / "references" / "leak.md").symlink_to(secret)
    with pytest.raises(SkillPathError, match="leak.md"):
        load_skill_from_dir(folder)


async def test_a_shell_script_past_its_timeout_is_stopped_and_reported():
    result = await _run_script(_skill(scripts={"slow.sh": "echo started; sleep 30"}), "slow.sh", script_timeout=1)
    assert result["status"] == "error" and result["stderr"] == "Timed out after 1s"
    assert result["stdout"] == "started\n"


async def test_a_python_script_that_fails_reports_its_traceback_and_exit():
    result = await _run_script(_skill(scripts={"bad.py": "import sys\nprint('half')\nsys.exit(3)"}), "bad.py")
    assert result["status"] == "error" and result["stdout"] == "half\n"


def test_skill_folders_that_break_the_rules_are_refused(tmp_path):
    with pytest.raises(FileNotFoundError):
        load_skill_from_dir(tmp_path / "missing")
    (tmp_path / "Bad_Name").mkdir()
    (tmp_path / "Bad_Name" / "SKILL.md").write_text("---\nname: Bad_Name\ndescription: x\n---\nbody")
    with pytest.raises(ValidationError, match="kebab-case"):
        load_skill_from_dir(tmp_path / "Bad_Name")
    folder = write_skill(tmp_path, name="other-name")
    folder.rename(tmp_path / "renamed")
    with pytest.raises(ValueError, match="does not match directory name 'renamed'"):
        load_skill_from_dir(tmp_path / "renamed")
    (tmp_path / "no-header").mkdir()
    (tmp_path / "no-header" / "SKILL.md").write_text("just text")
    with pytest.raises(ValueError, match="must start with YAML frontmatter"):
        load_skill_from_dir(tmp_path / "no-header")


def test_toolset_configuration_chronicle_cannot_honour_is_refused(tmp_path):
    skill = load_skill_from_dir(write_skill(tmp_path))
    with pytest.raises(InvalidArgumentError, match="Duplicate skill name 'trip-planner'"):
        SkillToolset(skills=[skill, skill])
    with pytest.raises(InvalidArgumentError, match="additional_tools takes"):
        SkillToolset(skills=[skill], additional_tools=["budget"])


def test_cloud_sources_and_executors_are_refused_with_what_to_use():
    from runtime.cloud_services import CloudServiceUnavailableError
    from runtime.skills import load_skill_from_gcs_dir

    with pytest.raises(CloudServiceUnavailableError, match="load_skill_from_dir"):
        load_skill_from_gcs_dir("bucket", "skills/x")
    with pytest.raises(ImportError, match="UnsafeLocalCodeExecutor"):
        from runtime.code_executors import ContainerCodeExecutor  # noqa: F401


def _inline(name: str, instructions: str, tools=()) -> models.Skill:
    return models.Skill(
        frontmatter=models.Frontmatter(name=name, description=f"The {name} skill.",
                                       metadata={"adk_additional_tools": list(tools)}),
        instructions=instructions,
    )


async def test_a_skill_changed_since_it_was_loaded_is_restated_to_the_model():
    from runtime.models.scripted import ScriptedLlm
    from runtime.tools.skill_toolset import SkillLifecycleConfig

    skill = _inline("recipes", "Use butter.")
    toolset = SkillToolset(skills=[skill], lifecycle_config=SkillLifecycleConfig(revalidate_skills=True))
    model = ScriptedLlm([ScriptedLlm.call("load_skill", skill_name="recipes"), "ok", "ok", "ok"])
    runner = await new_runner(LlmAgent(name=AGENT, model=model, tools=[toolset]))
    await send(runner, "cook")
    await send(runner, "again")
    assert "has changed since it was loaded" not in str(model.requests[-1].config.system_instruction)
    toolset._skills["recipes"] = _inline("recipes", "Use olive oil.")  # a new release of the skill
    await send(runner, "and now?")
    assert "The skill `recipes` has changed since it was loaded" in str(model.requests[-1].config.system_instruction)
    assert "Use olive oil." in str(model.requests[-1].config.system_instruction)


async def test_skills_are_loaded_and_unloaded_from_code_and_a_bad_cap_is_refused():
    from runtime.contexts import Context
    from runtime.models.scripted import ScriptedLlm
    from runtime.tools.skill_toolset import SkillLifecycleConfig, SkillLifecycleMode

    with pytest.raises(InvalidArgumentError, match="`max_active_skills` must be at least 1, got 0"):
        SkillLifecycleConfig(max_active_skills=0)
    toolset = SkillToolset(
        skills=[_inline("one", "1", ["budget"]), _inline("two", "2")], additional_tools=[budget],
        lifecycle_config=SkillLifecycleConfig(default_mode=SkillLifecycleMode.BOUNDED, max_active_skills=1),
    )
    seen = {}

    async def manage(tool_context: Context) -> dict:
        """Loads skills from code."""
        seen["first"] = await toolset.load_skill(tool_context, "one")
        seen["again"] = await toolset.load_skill(tool_context, "one")
        await toolset.load_skill(tool_context, "two")  # past the cap: "one" gives way
        seen["active"] = toolset.list_active_skills(tool_context)
        seen["unloaded"] = toolset.unload_skill(tool_context, "two")
        with pytest.raises(InvalidArgumentError, match="Skill 'nope' not found."):
            await toolset.load_skill(tool_context, "nope")
        return {}

    model = ScriptedLlm([ScriptedLlm.call("manage"), "ok"])
    runner = await new_runner(LlmAgent(name=AGENT, model=model, tools=[toolset, manage]))
    await send(runner, "go")
    assert seen == {"first": True, "again": False, "active": ["two"], "unloaded": True}
    assert (await stored(runner)).state == {ACTIVATED: []}


async def test_files_a_script_writes_are_saved_as_artifacts_and_oversized_ones_named():
    from runtime.models.scripted import ScriptedLlm

    writer = _skill(scripts={"write.py": textwrap.dedent(
        """\
        import os
        os.makedirs('out')
        open('out/summary.csv', 'w').write('a,b\\n1,2\\n')
        open('out/huge.bin', 'wb').write(b'0' * (6 * 1024 * 1024))
        open('references/ok.md', 'w').write('edited')
        print('done', end='')
        """
    )}, references={"ok.md": "fine", "same.md": "untouched"})
    toolset = SkillToolset(skills=[writer], code_executor=UnsafeLocalCodeExecutor(timeout_seconds=30),
                           save_output_artifacts=True)
    model = ScriptedLlm([ScriptedLlm.call("run_skill_script", skill_name="probe", file_path="write.py"), "ok"])
    runner = await new_runner(LlmAgent(name=AGENT, model=model, tools=[toolset]))
    result = responses(await send(runner, "write"))["run_skill_script"]
    assert result["stdout"] == "done\n" and result["status"] == "success"
    assert result["saved_artifacts"] == ["out/summary.csv", "references/ok.md"]  # new or changed files only
    assert result["skipped_artifacts"] == ["out/huge.bin"]  # over the 5 MiB a file may have
    saved = await runner.artifact_service.load_artifact(app_name=APP, user_id=USER, session_id=SESSION,
                                                        filename="out/summary.csv")
    assert saved.inline_data.data == b"a,b\n1,2\n" and saved.inline_data.mime_type == "text/csv"


# The skills' names at google-adk 2.13's paths, as a ported app imports them.
ADK_SKILL_PATHS = [
    ("skills", ["Frontmatter", "Resources", "Script", "Skill", "SkillRegistry", "list_skills_in_dir",
                "list_skills_in_dir_async", "load_skill_from_dir", "load_skill_from_dir_async",
                "load_skills_from_dir", "load_skills_from_dir_async", "list_skills_in_gcs_dir",
                "load_skill_from_gcs_dir"]),
    ("skills.models", ["Frontmatter", "Resources", "Script", "Skill"]),
    ("skills.prompt", ["format_skills_as_xml"]),
    ("skills.skill_registry", ["SkillRegistry"]),
    ("tools.skill_toolset", ["SkillToolset", "ListSkillsTool", "SearchSkillsTool", "LoadSkillTool", "UnloadSkillTool",
                             "LoadSkillResourceTool", "RunSkillScriptTool", "SkillDiscoveryMode", "SkillLifecycleMode",
                             "SkillLifecycleConfig", "DEFAULT_SKILL_SYSTEM_INSTRUCTION"]),
    ("code_executors", ["BaseCodeExecutor", "BuiltInCodeExecutor", "UnsafeLocalCodeExecutor"]),
    ("code_executors.code_execution_utils", ["CodeExecutionInput", "CodeExecutionResult", "File", "CodeExecutionUtils"]),
    ("code_executors.unsafe_local_code_executor", ["UnsafeLocalCodeExecutor"]),
    ("environment", ["BaseEnvironment", "ExecutionResult", "LocalEnvironment"]),
]


def test_the_skills_names_are_at_google_adks_paths_on_both(adk_python):
    for module, names in ADK_SKILL_PATHS:
        loaded = importlib.import_module(f"runtime.{module}")
        assert [name for name in names if not hasattr(loaded, name)] == [], module
    probe = (
        "import importlib, json, sys\n"
        "paths = json.loads(sys.argv[1])\n"
        "print(json.dumps([f'{m}.{n}' for m, names in paths for n in names "
        "if not hasattr(importlib.import_module('google.adk.' + m), n)]))"
    )
    done = subprocess.run([adk_python, "-c", probe, json.dumps(ADK_SKILL_PATHS)], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) == []  # the list is ADK's, not Chronicle's own
    from runtime.skills import prompt
    from runtime.tools import skill_toolset

    with pytest.warns(DeprecationWarning, match="import it from runtime.tools.skill_toolset"):
        assert prompt.DEFAULT_SKILL_SYSTEM_INSTRUCTION == skill_toolset.DEFAULT_SKILL_SYSTEM_INSTRUCTION


def test_an_agent_given_a_local_executor_is_told_to_give_it_to_the_skill_toolset():
    with pytest.raises(ValueError, match=r"SkillToolset\(code_executor=\.\.\.\)"):  # pydantic wraps it
        LlmAgent(name=AGENT, model="gemini-2.5-flash", code_executor=UnsafeLocalCodeExecutor())


async def test_a_skill_that_opts_in_has_its_instructions_filled_from_session_state(tmp_path):
    from runtime.models.scripted import ScriptedLlm

    folder = write_skill(tmp_path, frontmatter_extra="metadata:\n  adk_inject_state: true\n")
    (folder / "SKILL.md").write_text((folder / "SKILL.md").read_text().replace("Call", "Greet {user:name}, then call"))
    model = ScriptedLlm([ScriptedLlm.call("load_skill", skill_name="trip-planner"), "ok"])
    toolset = SkillToolset(skills=[load_skill_from_dir(folder)])
    runner = await new_runner(LlmAgent(name=AGENT, model=model, tools=[toolset]), state={"user:name": "Ann"})
    loaded = responses(await send(runner, "plan"))["load_skill"]
    assert loaded["instructions"] == "Greet Ann, then call `budget` after the script."


def test_listing_a_skills_folder_skips_an_invalid_skill_or_hands_it_to_on_error(tmp_path):
    from runtime.skills import list_skills_in_dir

    write_skill(tmp_path, name="good-one")
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "SKILL.md").write_text("no header")
    assert list(list_skills_in_dir(tmp_path)) == ["good-one"]
    errors = []
    assert list(list_skills_in_dir(tmp_path, on_error=lambda name, error: errors.append(name))) == ["good-one"]
    assert errors == ["broken"]


async def test_scripts_run_in_an_environment_where_the_skill_is_written_on_first_use(tmp_path):
    from runtime.environment import LocalEnvironment
    from runtime.models.scripted import ScriptedLlm

    folder = write_skill(tmp_path / "skills", files=TRIP_FILES)
    work = tmp_path / "work"
    toolset = SkillToolset(skills=[load_skill_from_dir(folder)], environment=LocalEnvironment(working_dir=work),
                           script_timeout=1)
    run = "cd skills/trip-planner && python3 scripts/cost.py --days 3"
    model = ScriptedLlm([
        ScriptedLlm.call("run_skill_script", skill_name="trip-planner", file_path="scripts/cost.py", command=run),
        ScriptedLlm.call("run_skill_script", skill_name="trip-planner", file_path="scripts/cost.py"),
        ScriptedLlm.call("run_skill_script", skill_name="trip-planner", file_path="cost.py", command="sleep 30"),
        "ok",
    ])
    runner = await new_runner(LlmAgent(name=AGENT, model=model, tools=[toolset]))
    got = [r.response for e in await send(runner, "3 days") for r in e.get_function_responses()]
    assert got[0] == {"stdout": "240\n", "stderr": "", "exit_code": 0, "timed_out": False}
    assert got[1]["error_code"] == "INVALID_ARGUMENTS"  # the command is the model's to give
    assert got[2]["timed_out"] is True
    assert (work / "skills" / "trip-planner" / "references" / "rates.md").read_text() == "EUR per day: 80\n"
    system = str(model.requests[0].config.system_instruction)
    assert f"materialized in the execution environment under `{work.as_posix()}/skills/<skill_name>/`" in system
    declaration = model.requests[0].config.tools[0].function_declarations
    assert [d.parameters_json_schema["required"] for d in declaration if d.name == "run_skill_script"] == [
        ["skill_name", "file_path", "command"]
    ]
    await toolset.close()
    assert work.exists()  # a working folder given is the caller's: never removed


async def test_an_environment_refuses_paths_that_leave_its_folder(tmp_path):
    from runtime.environment import LocalEnvironment

    result = await _run_in(tmp_path, _skill(references={"../../outside.md": "x"}, scripts={"run.sh": "echo hi"}))
    assert result["error_code"] == "EXECUTION_ERROR" and "Path traversal detected" in result["error"]
    assert not (tmp_path / "outside.md").exists() and not (tmp_path / "work" / "outside.md").exists()
    env = LocalEnvironment(working_dir=tmp_path / "work")
    await env.initialize()
    with pytest.raises(InvalidArgumentError, match="escapes working directory"):
        await env.write_file(tmp_path / "elsewhere.txt", "x")
    with pytest.raises(InvalidArgumentError, match="escapes working directory"):
        await env.read_file("../../etc/passwd")


async def _run_in(tmp_path, skill: models.Skill):
    from runtime.environment import LocalEnvironment
    from runtime.models.scripted import ScriptedLlm

    toolset = SkillToolset(skills=[skill], environment=LocalEnvironment(working_dir=tmp_path / "work"))
    model = ScriptedLlm([ScriptedLlm.call("run_skill_script", skill_name=skill.name, file_path="run.sh",
                                          command="bash skills/probe/scripts/run.sh"), "ok"])
    runner = await new_runner(LlmAgent(name=AGENT, model=model, tools=[toolset]))
    return responses(await send(runner, "run"))["run_skill_script"]


def test_an_environment_configured_inconsistently_is_refused(tmp_path):
    from runtime.environment import LocalEnvironment

    skill = load_skill_from_dir(write_skill(tmp_path))
    env = LocalEnvironment(working_dir=tmp_path / "work")
    with pytest.raises(InvalidArgumentError, match="Cannot have both code_executor and environment"):
        SkillToolset(skills=[skill], environment=env, code_executor=UnsafeLocalCodeExecutor())
    with pytest.raises(InvalidArgumentError, match="only supported with code_executor"):
        SkillToolset(skills=[skill], environment=env, save_output_artifacts=True)
    with pytest.raises(InvalidArgumentError, match="without an environment"):
        SkillToolset(skills=[skill], skills_folder="/srv/skills")
    with pytest.raises(InvalidArgumentError, match="must be an absolute path: 'skills'"):
        SkillToolset(skills=[skill], environment=env, skills_folder="skills")


def test_a_skill_archive_loads_and_one_with_an_escaping_entry_is_refused_whole():
    import io
    import zipfile

    from runtime.skills._utils import _load_skill_from_zip_bytes

    def archive(entries: dict) -> bytes:
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as z:
            for name, content in entries.items():
                z.writestr(name, content)
        return buffer.getvalue()

    md = "---\nname: zipped\ndescription: From an archive.\n---\nBody."
    skill = _load_skill_from_zip_bytes(archive({"SKILL.md": md, "references/a.md": "A", "assets/b.bin": b"\xff\x00"}))
    assert (skill.name, skill.instructions, skill.resources.references, skill.resources.assets) == (
        "zipped", "Body.", {"a.md": "A"}, {"b.bin": b"\xff\x00"})
    with pytest.raises(SkillPathError, match="Dangerous zip entry ignored: references/../../evil"):
        _load_skill_from_zip_bytes(archive({"SKILL.md": md, "references/../../evil": "x"}))
    with pytest.raises(ValueError, match="too large decompressed"):
        _load_skill_from_zip_bytes(archive({"SKILL.md": md, "assets/big": b"0" * (33 * 1024 * 1024)}))
    with pytest.raises(ValueError, match="malformed"):
        _load_skill_from_zip_bytes(b"not a zip")
