"""The workflow's typed errors (ADK 2.13's names), in Chronicle's error hierarchy."""

from __future__ import annotations

from domain.errors import ChronicleError, InvalidArgumentError


class WorkflowConfigurationError(InvalidArgumentError):
    """A workflow, node or edge declared in an unusable way; raised when it is built."""


class GraphValidationError(WorkflowConfigurationError):
    """A workflow graph that is not well formed (unknown or duplicate node, an edge into START, ...)."""


class WorkflowDataError(InvalidArgumentError):
    """Data arriving during a run does not fit what takes it (e.g. a missing function parameter)."""


class StateSchemaError(InvalidArgumentError, TypeError):
    """A state change that the workflow's `state_schema` does not allow; nothing is written.
    (A TypeError too, as in ADK.)"""


class NodeTimeoutError(ChronicleError):
    """A node ran longer than its `timeout`. An ordinary exception, so `retry_config` can retry it."""

    def __init__(self, *, node_name: str, timeout: float) -> None:
        self.node_name = node_name
        self.timeout = timeout
        super().__init__(f"Node '{node_name}' timed out after {timeout} seconds.")


class NodeInterruptedError(ChronicleError):
    """Raised in a node by `ctx.run_node` when the child waits for a person's input: the node waits
    too, on the same requests (the scheduler records it as waiting, not failed)."""

    def __init__(self, interrupts: list[str]) -> None:
        self.interrupts = list(interrupts)
        super().__init__(f"Waiting for input: {', '.join(self.interrupts)}")
