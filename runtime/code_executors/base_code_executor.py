"""BaseCodeExecutor: the type of an LlmAgent's `code_executor`."""

from __future__ import annotations

from pydantic import BaseModel


class BaseCodeExecutor(BaseModel):
    """Chronicle runs no code itself: the one executor it supports is BuiltInCodeExecutor, which
    lets the model run code on its side. An LlmAgent refuses any other executor (google-adk's
    local, container and Vertex executors are not ported), rather than ignore it."""

    optimize_data_file: bool = False
    stateful: bool = False
    error_retry_attempts: int = 2
