"""ExecuteBashTool (google-adk 2.13's `tools.bash_tool`): a command run in a workspace, never
without a person's approval of that exact command, and only if the policy permits it."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
import pathlib
import shlex
import signal
from typing import Any, Optional

from google.genai import types

from runtime.tools.base_tool import BaseTool
from runtime.tools.tool_context import ToolContext

try:
    import resource
except ModuleNotFoundError:  # not POSIX: no limits to set (and the tool refuses to run)
    resource = None  # type: ignore[assignment]

logger = logging.getLogger("google_adk." + __name__)  # ADK's logger names: users filter on "google_adk"

NO_OUTPUT = {"stdout": "<no stdout captured>", "stderr": "<no stderr captured>"}


@dataclasses.dataclass(frozen=True)
class BashToolPolicy:
    """Which commands may run and the limits they run under.

    `allowed_command_prefixes`: ("*",) allows any command; otherwise a command must start with
    one entry's whole shell words (("ls",) allows `ls -la`, not `lsof` or `/bin/ls`; ("git
    status",) allows only that subcommand). Commands run without a shell, so `|`, `;`, `$(` reach
    the program as plain arguments; `blocked_operators` refuses commands containing any of them.
    The memory, file size and process limits are set on the command's process."""

    allowed_command_prefixes: tuple[str, ...] = ("*",)
    blocked_operators: tuple[str, ...] = ()
    timeout_seconds: Optional[int] = 30
    max_memory_bytes: Optional[int] = None
    max_file_size_bytes: Optional[int] = None
    max_child_processes: Optional[int] = None

    def __post_init__(self) -> None:
        for prefix in self.allowed_command_prefixes:
            try:
                shlex.split(prefix)
            except ValueError as exc:
                logger.warning("Ignoring unparsable allowed_command_prefixes entry %r: %s", prefix, exc)

    def allows_any(self) -> bool:
        return "*" in self.allowed_command_prefixes


def _validate_command(command: str, policy: BashToolPolicy) -> Optional[str]:
    """Why `policy` refuses `command`, or None if it may run (after approval)."""
    stripped = command.strip()
    if not stripped:
        return "Command is required."
    for operator in policy.blocked_operators:
        if operator in command:
            return f"Command contains blocked operator: {operator}"
    if policy.allows_any():
        return None
    try:
        argv = shlex.split(stripped)
    except ValueError:
        return "Unable to parse command."
    if not argv:
        return "Command is required."
    for prefix in policy.allowed_command_prefixes:
        try:
            words = shlex.split(prefix)
        except ValueError:
            continue
        if words and argv[: len(words)] == words:
            return None
    return f"Command blocked. Permitted prefixes are: {', '.join(policy.allowed_command_prefixes) or '<none>'}"


def _set_resource_limits(policy: BashToolPolicy) -> None:
    """In the child, before exec: no core dumps, and the policy's limits."""
    if resource is None:
        return
    limits = [
        (resource.RLIMIT_CORE, 0),
        (resource.RLIMIT_AS, policy.max_memory_bytes),
        (resource.RLIMIT_FSIZE, policy.max_file_size_bytes),
        (resource.RLIMIT_NPROC, policy.max_child_processes),
    ]
    try:
        for which, value in limits:
            if value is not None and (value or which == resource.RLIMIT_CORE):
                resource.setrlimit(which, (value, value))
    except (ValueError, OSError) as exc:
        logger.warning("Failed to set resource limits: %s", exc)


def _kill_group(process: asyncio.subprocess.Process) -> None:
    """Kills the command and whatever it started (it leads its own session)."""
    if not process.pid:
        return
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _decoded(stdout: Optional[bytes], stderr: Optional[bytes]) -> dict[str, str]:
    return {
        "stdout": stdout.decode(errors="replace") if stdout else NO_OUTPUT["stdout"],
        "stderr": stderr.decode(errors="replace") if stderr else NO_OUTPUT["stderr"],
    }


class ExecuteBashTool(BaseTool):
    """`execute_bash(command)`: runs a command (split into words, no shell) in `workspace`.

    Every call asks a person first (the hint shows the command); it runs only once approved,
    with the policy's timeout and limits, and answers with stdout, stderr and the return code."""

    def __init__(self, *, workspace: Optional[pathlib.Path] = None, policy: Optional[BashToolPolicy] = None):
        policy = policy or BashToolPolicy()
        allowed = (
            "any command"
            if policy.allows_any()
            else f"commands matching prefixes: {', '.join(policy.allowed_command_prefixes) or '<none>'}"
        )
        # google-adk 2.13's description, word for word: the model reads it.
        super().__init__(
            name="execute_bash",
            description=(
                "Executes a bash command with the working directory set to the workspace. "
                f"Allowed: {allowed}. All commands require user confirmation."
            ),
        )
        self._workspace = workspace if workspace is not None else pathlib.Path.cwd()
        self._policy = policy

    def _get_declaration(self) -> Optional[types.FunctionDeclaration]:
        return types.FunctionDeclaration(
            name=self.name,
            description=self.description,
            parameters_json_schema={
                "type": "object",
                "properties": {"command": {"type": "string", "description": "The bash command to execute."}},
                "required": ["command"],
            },
        )

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        command = args.get("command")
        if not isinstance(command, str) or not command:
            return {"error": "Command is required."}
        refused = _validate_command(command, self._policy)
        if refused:
            return {"error": refused}
        confirmation = tool_context.tool_confirmation
        if not confirmation:
            tool_context.request_confirmation(hint=f"Please approve or reject the bash command: {command}")
            tool_context.actions.skip_summarization = True
            return {"error": "This tool call requires confirmation, please approve or reject."}
        if not confirmation.confirmed:
            return {"error": "This tool call is rejected."}
        if os.name != "posix":
            return {"error": "ExecuteBashTool is only supported on POSIX systems."}
        return await self._run(command)

    async def _run(self, command: str) -> dict[str, Any]:
        stdout = stderr = None
        try:
            process = await asyncio.create_subprocess_exec(
                *shlex.split(command),
                cwd=str(self._workspace),
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                start_new_session=True,
                preexec_fn=lambda: _set_resource_limits(self._policy),
            )
            try:
                stdout, stderr = await asyncio.wait_for(process.communicate(), timeout=self._policy.timeout_seconds)
            except asyncio.TimeoutError:
                _kill_group(process)
                stdout, stderr = await process.communicate()
                return {
                    "error": f"Command timed out after {self._policy.timeout_seconds} seconds.",
                    **_decoded(stdout, stderr),
                    "returncode": process.returncode,
                }
            finally:
                _kill_group(process)  # anything the command left running in its group
            return {**_decoded(stdout, stderr), "returncode": process.returncode}
        except Exception as exc:  # noqa: BLE001 - the model is told, as ADK tells it
            logger.exception("ExecuteBashTool execution failed")
            return {"error": f"Execution failed: {exc}", **_decoded(stdout, stderr)}

    def _detect_error_in_response(self, response: Any) -> Optional[str]:
        """For telemetry: an answer with an error is a tool error."""
        return "TOOL_ERROR" if isinstance(response, dict) and response.get("error") else None
