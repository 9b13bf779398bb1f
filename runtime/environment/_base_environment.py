"""BaseEnvironment: where commands run (initialize, then execute / read_file / write_file, then close)."""

from __future__ import annotations

import abc
import dataclasses
from pathlib import Path
from typing import Optional, Union


@dataclasses.dataclass
class ExecutionResult:
    exit_code: int = 0
    stdout: str = ""
    stderr: str = ""
    timed_out: bool = False


class BaseEnvironment(abc.ABC):
    _is_initialized: bool = False

    @property
    def is_initialized(self) -> bool:
        return self._is_initialized

    @is_initialized.setter
    def is_initialized(self, value: bool) -> None:
        self._is_initialized = value

    async def initialize(self) -> None:
        """Prepares the environment before first use (idempotent; nothing by default)."""

    async def close(self) -> None:
        """Releases what the environment holds (idempotent; nothing by default)."""

    @property
    @abc.abstractmethod
    def working_dir(self) -> Path:
        """The absolute path commands run in."""

    @abc.abstractmethod
    async def execute(self, command: str, *, timeout: Optional[float] = None) -> ExecutionResult:
        """Runs a shell command in the working folder (``timeout`` in seconds; None: no limit)."""

    @abc.abstractmethod
    async def read_file(self, path: Path) -> bytes:
        """A file's bytes (a relative path is from the working folder); FileNotFoundError if none."""

    @abc.abstractmethod
    async def write_file(self, path: Path, content: Union[str, bytes]) -> None:
        """Writes a file, creating its folders."""
