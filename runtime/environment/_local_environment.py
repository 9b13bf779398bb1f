"""LocalEnvironment: commands run as local subprocesses in a working folder (a temporary one,
removed on close, when none is given). Files outside the working folder are refused."""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import signal
import tempfile
from pathlib import Path
from typing import Optional, Union

from domain.errors import ChronicleError, InvalidArgumentError
from runtime.environment._base_environment import BaseEnvironment, ExecutionResult

logger = logging.getLogger(__name__)

_GRACE_SECONDS = 5  # after SIGTERM before SIGKILL, and after SIGKILL before giving up on the output


class EnvironmentNotInitializedError(ChronicleError, RuntimeError):
    """The environment was used before initialize()."""


class LocalEnvironment(BaseEnvironment):
    def __init__(self, *, working_dir: Optional[Path] = None, env_vars: Optional[dict[str, str]] = None):
        self._working_dir = Path(working_dir) if working_dir is not None else None
        self._env_vars = env_vars
        self._auto_created = False
        self._is_initialized = False

    @property
    def working_dir(self) -> Path:
        if self._working_dir is None:
            raise EnvironmentNotInitializedError("`working_dir` is not set. Call initialize() first.")
        return self._working_dir

    async def initialize(self) -> None:
        if self._working_dir is None:
            self._working_dir = Path(tempfile.mkdtemp(prefix="adk_workspace_"))
            self._auto_created = True
        else:
            os.makedirs(self._working_dir, exist_ok=True)
        self._is_initialized = True

    async def close(self) -> None:
        if self._auto_created and self._working_dir:
            shutil.rmtree(self._working_dir, ignore_errors=True)
            self._working_dir = None
        self._is_initialized = False

    async def execute(self, command: str, *, timeout: Optional[float] = None) -> ExecutionResult:
        process = await asyncio.create_subprocess_shell(
            command,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=self.working_dir,
            env={**os.environ, **(self._env_vars or {})},
            start_new_session=True,  # a timeout then stops everything the command started
        )
        # One reader for the whole call: the pipes stay open while any child holds them.
        drain = asyncio.ensure_future(process.communicate())
        timed_out = False
        try:
            stdout, stderr = await asyncio.wait_for(asyncio.shield(drain), timeout=timeout)
        except asyncio.TimeoutError:
            timed_out = True
            stdout, stderr = await _stop(process, drain)
        except asyncio.CancelledError:
            await _stop(process, drain)
            raise
        return ExecutionResult(
            exit_code=process.returncode or 0,
            stdout=stdout.decode("utf-8", errors="replace"),
            stderr=stderr.decode("utf-8", errors="replace"),
            timed_out=timed_out,
        )

    async def read_file(self, path: Union[str, Path]) -> bytes:
        return await asyncio.to_thread(self._inside(path).read_bytes)

    async def write_file(self, path: Union[str, Path], content: Union[str, bytes]) -> None:
        target = self._inside(path)

        def write() -> None:
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, str):
                target.write_text(content, encoding="utf-8", newline="")
            else:
                target.write_bytes(content)

        await asyncio.to_thread(write)

    def _inside(self, path: Union[str, Path]) -> Path:
        """``path`` (relative: from the working folder), refused if it leads out of it."""
        root = self.working_dir.resolve()
        candidate = Path(path)
        resolved = (candidate if candidate.is_absolute() else root / candidate).resolve()
        if not resolved.is_relative_to(root):
            raise InvalidArgumentError(f"Path escapes working directory: {path}")
        return resolved


async def _stop(process: asyncio.subprocess.Process, drain: asyncio.Future) -> tuple[bytes, bytes]:
    """Stops a command and its process group (SIGTERM, then SIGKILL); returns what it wrote."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(process.pid, sig)
        except OSError:
            pass
        done, _ = await asyncio.wait([drain], timeout=_GRACE_SECONDS)
        if done:
            return drain.result()
    drain.cancel()  # a child left the group and holds the pipes: give up on its output
    logger.warning("Gave up reading output from a killed command.")
    return b"", b""
