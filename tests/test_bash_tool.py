"""ExecuteBashTool in a real agent, over every store: the command runs as a real subprocess in
the workspace only after a person approves that exact command, and never if the policy or the
person refuses it."""

from __future__ import annotations

import asyncio
import json
import os
import sys

import pytest

from runtime.tools.bash_tool import BashToolPolicy, ExecuteBashTool
from tests.hitl_helpers import APP, SESSION, USER, brain, confirm, make_runner, request_of, run, text  # noqa: F401 - the session conftest's `sessions` makes


def bash_runner(sessions, workspace, command, policy=None):
    tool = ExecuteBashTool(workspace=workspace, policy=policy)
    return make_runner(sessions, [tool], model=brain("execute_bash", command=command))


def last_result(events) -> dict:
    """The tool's answer, as the scripted model reported it."""
    return json.loads(events[-1].text().removeprefix("result: "))


async def test_a_command_runs_only_after_approval(sessions, tmp_path):
    runner = bash_runner(sessions, tmp_path, "touch approved.txt")

    events = await run(runner, text("make the file"))
    request = request_of(events)
    assert request.args["toolConfirmation"]["hint"] == "Please approve or reject the bash command: touch approved.txt"
    assert not (tmp_path / "approved.txt").exists()  # asked, not run

    events = await run(runner, confirm(request.id, True))
    assert (tmp_path / "approved.txt").exists()
    assert last_result(events)["returncode"] == 0


async def test_a_rejected_command_never_runs(sessions, tmp_path):
    runner = bash_runner(sessions, tmp_path, "touch rejected.txt")
    request = request_of(await run(runner, text("make the file")))

    events = await run(runner, confirm(request.id, False))

    assert not (tmp_path / "rejected.txt").exists()
    assert last_result(events) == {"error": "This tool call is rejected."}


async def test_output_return_code_and_workspace(sessions, tmp_path):
    script = "import os, sys; print(os.getcwd()); print('oops', file=sys.stderr); sys.exit(3)"
    runner = bash_runner(sessions, tmp_path, f"{sys.executable} -c \"{script}\"")
    request = request_of(await run(runner, text("run it")))

    result = last_result(await run(runner, confirm(request.id, True)))

    assert result == {"stdout": f"{tmp_path}\n", "stderr": "oops\n", "returncode": 3}


async def test_the_policy_refuses_before_anyone_is_asked(sessions, tmp_path):
    policy = BashToolPolicy(allowed_command_prefixes=("ls", "git status"), blocked_operators=(";",))
    for command, why in [("lsof", "Permitted prefixes are: ls, git status"),
                         ("git push", "Permitted prefixes are"),
                         ("ls ; rm -rf /", "blocked operator: ;")]:
        runner = bash_runner(sessions, tmp_path, command, policy)
        events = await run(runner, text("go"))
        assert not [c for e in events for c in e.get_function_calls() if c.name == "adk_request_confirmation"]
        assert why in last_result(events)["error"]


async def test_a_command_that_outlives_its_timeout_is_killed_with_its_children(sessions, tmp_path):
    marker = tmp_path / "child_finished"
    # The child would write the marker after 3 s; the timeout kills the whole process group at 1 s.
    script = f"import subprocess, sys, time; subprocess.Popen(['sh', '-c', 'sleep 3; touch {marker}']); time.sleep(30)"
    runner = bash_runner(sessions, tmp_path, f"{sys.executable} -c \"{script}\"", BashToolPolicy(timeout_seconds=1))
    request = request_of(await run(runner, text("run it")))

    result = last_result(await run(runner, confirm(request.id, True)))

    assert result["error"] == "Command timed out after 1 seconds."
    await asyncio.sleep(3.5)
    assert not marker.exists()


@pytest.mark.skipif(os.name != "posix", reason="resource limits are POSIX")
async def test_resource_limits_apply_to_the_command(sessions, tmp_path):
    policy = BashToolPolicy(max_file_size_bytes=1000)
    script = "with open('big', 'wb') as f: f.write(bytes(5000))"
    runner = bash_runner(sessions, tmp_path, f"{sys.executable} -c \"{script}\"", policy)
    request = request_of(await run(runner, text("write")))

    result = last_result(await run(runner, confirm(request.id, True)))

    assert result["returncode"] != 0 and "File too large" in result["stderr"]
    assert (tmp_path / "big").stat().st_size <= 1000


def test_the_model_is_told_what_it_may_run_and_that_each_command_is_confirmed():
    assert ExecuteBashTool().description == (
        "Executes a bash command with the working directory set to the workspace. Allowed: any command. "
        "All commands require user confirmation.")
    limited = ExecuteBashTool(policy=BashToolPolicy(allowed_command_prefixes=("ls", "cat")))
    assert "Allowed: commands matching prefixes: ls, cat." in limited.description
    assert limited._get_declaration().parameters_json_schema["required"] == ["command"]
