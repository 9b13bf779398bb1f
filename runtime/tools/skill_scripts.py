"""Running a skill's script through a code executor (the `run_skill_script` tool's engine).

The executor gets one self-contained Python program: the skill's files as a dict literal, written
into a fresh temporary folder (every path checked first, so one that could leave the folder is
refused with PermissionError before anything is written), then the script run there, a Python one
in-process with ``runpy`` and a shell one with ``bash`` in a child whose output comes back as a
JSON envelope on stdout. Any executor that runs Python can thus run any skill's script.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from typing import Any, Optional, Union

from runtime.code_executors.base_code_executor import BaseCodeExecutor
from runtime.code_executors.code_execution_utils import CodeExecutionInput
from runtime.skills import models
from runtime.skills._utils import SkillPathError, _validate_relative_resource_path
from runtime.tools import skill_outputs

logger = logging.getLogger(__name__)

DEFAULT_SCRIPT_TIMEOUT = 300  # seconds, for shell scripts
_MAX_PAYLOAD_BYTES = 16 * 1024 * 1024  # above this a warning: the whole skill travels in the program
_SHELL_EXTENSIONS = ("sh", "bash")
_SHELL_ENVELOPE = "__shell_result__"
_MAX_ERROR_CHARS = 200

ScriptArgs = Union[dict[str, Any], list[str], None]

_PROGRAM = """
import json
import ntpath
import os
import runpy
import subprocess
import sys
import tempfile

_files = {files!r}
{helpers}


def _target(root, rel_path):
    # runtime.skills' path rule, restated: this program runs where Chronicle may not be importable.
    # Where rel_path (its folder, then the file's own name in it) lands under root; PermissionError
    # if it, or the name alone, could land anywhere else.
    posix = rel_path.replace('\\\\', '/')
    name = posix.partition('/')[2] or posix
    norm = os.path.normpath(posix)
    if any(
        os.path.isabs(path) or ntpath.isabs(path) or ntpath.splitdrive(path)[0]
        or os.path.normpath(path) == '.' or os.path.normpath(path).startswith('..') or '..' in path.split('/')
        for path in (posix, name)
    ):
        raise PermissionError(f'Path traversal detected: {{rel_path!r}}')
    target = os.path.realpath(os.path.join(root, norm))
    if target == root or os.path.commonpath([root, target]) != root:
        raise PermissionError(f'Path traversal detected: {{rel_path!r}}')
    return target


def _materialize_and_run():
    cwd = os.getcwd()
    with tempfile.TemporaryDirectory() as td:
        root = os.path.realpath(td)
        targets = {{}}
        for rel_path, content in _files.items():  # every path checked before anything is written
            target = _target(root, rel_path)
            if target in targets:
                raise ValueError(f'Duplicate normalized path detected: {{rel_path!r}}')
            targets[target] = content
        for target, content in targets.items():
            os.makedirs(os.path.dirname(target), exist_ok=True)
            mode = 'wb' if isinstance(content, bytes) else 'w'
            with open(target, mode, encoding='utf-8' if mode == 'w' else None) as f:
                f.write(content)
        {snapshot}
        os.chdir(root)
        try:
{run}
        finally:
{report}
            os.chdir(cwd)


_materialize_and_run()
"""

_RUN_PYTHON = """\
            sys.argv = {argv!r}
            sys.path.insert(0, os.path.dirname(os.path.abspath({path!r})))
            try:
                runpy.run_path({path!r}, run_name='__main__')
            except SystemExit as exit_:
                if exit_.code not in (None, 0):
                    raise"""

_RUN_SHELL = """\
            try:
                done = subprocess.run(
                    {argv!r}, capture_output=True, text=True,
                    encoding='utf-8', errors='replace', timeout={timeout!r}, cwd=root,
                )
                result = {{'__shell_result__': True, 'stdout': done.stdout, 'stderr': done.stderr,
                          'returncode': done.returncode}}
            except subprocess.TimeoutExpired as expired:
                partial = expired.stdout or ''
                if isinstance(partial, bytes):
                    partial = partial.decode('utf-8', 'replace')
                result = {{'__shell_result__': True, 'stdout': partial, 'stderr': 'Timed out after {timeout}s',
                          'returncode': -1, 'timeout': True}}
            print('\\n' + json.dumps(result))"""


def script_relative_path(file_path: str) -> str:
    """``file_path`` relative to the skill's scripts/ folder (a leading ``scripts/`` or ``./`` is
    dropped); PermissionError if it could leave it."""
    path = file_path.replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    path = path.removeprefix("scripts/")
    try:
        return _validate_relative_resource_path(path)
    except SkillPathError as error:
        raise PermissionError(f"Path traversal detected: {file_path!r}") from error


def _command_line(head: list[str], script_args: ScriptArgs, short_options: Optional[dict], positional: Optional[list]) -> list[str]:
    """argv: a list of args as given; else ``--key value`` per arg, ``-k value`` per short option,
    then ``--`` and the positional ones."""
    argv = list(head)
    if isinstance(script_args, list):
        return argv + [str(value) for value in script_args]
    for key, value in (script_args or {}).items():
        argv += [f"--{key}", str(value)]
    for key, value in (short_options or {}).items():
        argv += [f"-{key}", str(value)]
    if positional:
        argv += ["--", *(str(value) for value in positional)]
    return argv


def _skill_files(skill: models.Skill) -> dict[str, Union[str, bytes]]:
    """Every file of the skill by its path in the skill's folder (empty files too)."""
    resources = skill.resources
    files: dict[str, Union[str, bytes]] = {}
    for folder, names, get in (
        ("references", resources.list_references(), resources.get_reference),
        ("assets", resources.list_assets(), resources.get_asset),
    ):
        for name in names:
            content = get(name)
            if content is not None:
                files[f"{folder}/{name}"] = content
    for name in resources.list_scripts():
        script = resources.get_script(name)
        if script is not None and script.src is not None:
            files[f"scripts/{name}"] = script.src
    size = sum(len(content) for content in files.values())
    if size > _MAX_PAYLOAD_BYTES:
        logger.warning("Skill '%s' resources total %d bytes, above the recommended %d.", skill.name, size, _MAX_PAYLOAD_BYTES)
    return files


def _extension(path: str) -> str:
    return path.rsplit(".", 1)[-1].lower() if "." in path else ""


class _SkillScriptCodeExecutor:
    """Runs one skill script through ``base_executor`` and reports it as the tool's response."""

    def __init__(
        self, base_executor: BaseCodeExecutor, script_timeout: int = DEFAULT_SCRIPT_TIMEOUT,
        save_output_artifacts: bool = False,
    ):
        self._base_executor = base_executor
        self._script_timeout = script_timeout
        self._save_output_artifacts = save_output_artifacts
        self._nonce = ""  # of the last program built, when it reports the files the script wrote

    def _build_wrapper_code(
        self,
        skill: models.Skill,
        file_path: str,
        script_args: ScriptArgs,
        short_options: Optional[dict[str, Any]] = None,
        positional_args: Optional[list[str]] = None,
    ) -> Optional[str]:
        """The program that runs the script, or None when its type is not one that can run."""
        path = f"scripts/{script_relative_path(file_path)}"
        extension = _extension(path)
        if extension == "py":
            argv = _command_line([path], script_args, short_options, positional_args)
            run = _RUN_PYTHON.format(argv=argv, path=path)
        elif extension in _SHELL_EXTENSIONS:
            argv = _command_line(["bash", path], script_args, short_options, positional_args)
            run = _RUN_SHELL.format(argv=argv, timeout=self._script_timeout)
        else:
            return None
        pieces = {"helpers": "", "snapshot": "", "report": ""}
        self._nonce = ""
        if self._save_output_artifacts:
            self._nonce = secrets.token_hex(16)
            pieces = {"helpers": skill_outputs.helpers(self._nonce), "snapshot": skill_outputs.SNAPSHOT,
                      "report": skill_outputs.REPORT}
        return _PROGRAM.format(files=_skill_files(skill), run=run, **pieces)

    async def execute_script_async(
        self,
        invocation_context: Any,
        skill: models.Skill,
        file_path: str,
        script_args: ScriptArgs,
        short_options: Optional[dict[str, Any]] = None,
        positional_args: Optional[list[str]] = None,
        tool_context: Any = None,
    ) -> dict[str, Any]:
        try:
            code = self._build_wrapper_code(skill, file_path, script_args, short_options, positional_args)
            if code is None:
                extension = _extension(file_path)
                shown = f"'.{extension}'" if extension else "(no extension)"
                return {
                    "error": f"Unsupported script type {shown}. Supported types: .py, .sh, .bash",
                    "error_code": "UNSUPPORTED_SCRIPT_TYPE",
                }
            result = await asyncio.to_thread(
                self._base_executor.execute_code, invocation_context, CodeExecutionInput(code=code)
            )
            stdout, stderr = result.stdout, result.stderr
            exit_code = result.exit_code if isinstance(getattr(result, "exit_code", None), int) else None
            stdout, outputs, skipped = skill_outputs.extract(stdout, self._nonce)
            if _extension(file_path) in _SHELL_EXTENSIONS:
                stdout, stderr, exit_code = _unwrap_shell(stdout, stderr, file_path, skill.name)
            response = {
                "skill_name": skill.name,
                "file_path": file_path,
                "stdout": stdout,
                "stderr": stderr,
                "status": _status(stdout, stderr, exit_code),
            }
            saved = await skill_outputs.save(tool_context, outputs, skipped)
            if saved:
                response["saved_artifacts"] = saved
            if skipped:
                response["skipped_artifacts"] = skipped
            return response
        except SystemExit as exit_:  # an in-process executor running a script that exits
            if exit_.code in (None, 0):
                return {"skill_name": skill.name, "file_path": file_path, "stdout": "", "stderr": "", "status": "success"}
            return {
                "error": f"Failed to execute script '{file_path}': exited with code {exit_.code}",
                "error_code": "EXECUTION_ERROR",
            }
        except Exception as error:  # noqa: BLE001 - reported to the model, which decides what next
            logger.exception("Error executing script '%s' from skill '%s'", file_path, skill.name)
            message = str(error)
            if len(message) > _MAX_ERROR_CHARS:
                message = message[:_MAX_ERROR_CHARS] + "..."
            return {
                "error": f"Failed to execute script '{file_path}':\n{type(error).__name__}: {message}",
                "error_code": "EXECUTION_ERROR",
            }


def _unwrap_shell(stdout: str, stderr: str, file_path: str, skill_name: str) -> tuple[str, str, Optional[int]]:
    """The shell script's own (stdout, stderr, exit code) from the wrapper's JSON envelope: its
    last line, since the interpreter may print warnings before. A non-zero exit is appended to
    stderr (not for a timeout, which says so already)."""
    envelope = None
    for line in reversed((stdout or "").splitlines()):
        line = line.strip()
        if line.startswith("{") and line.endswith("}"):
            try:
                candidate = json.loads(line)
            except ValueError:
                continue
            if isinstance(candidate, dict) and candidate.get(_SHELL_ENVELOPE):
                envelope = candidate
                break
    if envelope is None:
        if stdout:
            logger.warning("No shell execution envelope found in stdout for '%s' from skill '%s'.", file_path, skill_name)
        return stdout, stderr, None
    out, err, code = envelope.get("stdout", ""), envelope.get("stderr", ""), envelope.get("returncode", 0)
    if code != 0 and not envelope.get("timeout"):
        err = f"{err.rstrip()}\nExit code {code}" if err else f"Exit code {code}"
    return out, err, code


def _status(stdout: str, stderr: str, exit_code: Optional[int]) -> str:
    """error: a non-zero exit, or (no exit status known) stderr with no stdout; warning: stderr
    beside stdout; else success."""
    if exit_code not in (None, 0):
        return "error"
    if stderr:
        return "warning" if stdout else "error"
    return "success"
