"""BaseNode: one step of a workflow graph, and the built-in START and JoinNode."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, AsyncGenerator, Optional

from google.genai import types
from pydantic import BaseModel, ConfigDict, TypeAdapter

from domain.events import Event
from runtime.events.request_input import RequestInput
from runtime.workflow.content_input import unwrapped
from runtime.workflow.errors import WorkflowConfigurationError, WorkflowDataError
from runtime.workflow.retry_config import RetryConfig

if TYPE_CHECKING:
    from runtime.workflow.context import Context


class BaseNode(BaseModel):
    """A node. `_run_impl(ctx=, node_input=)` is an async generator that yields Events, plain values
    (the node's output), or None; `run` validates input and output against the schemas."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    name: str
    description: str = ""
    rerun_on_resume: bool = False
    """When a resumed invocation reaches this node waiting for input: run it again (True), or take
    the answer as its output (False). A node cut off by a crash has no output and always runs again."""
    wait_for_output: bool = False
    """A run that ends with neither an output nor a route is recorded as waiting, not completed, and
    triggers nothing; the node's next trigger runs it again (as ADK: for a node that gathers inputs
    over several runs before it gives its output)."""
    retry_config: Optional[RetryConfig] = None
    timeout: Optional[float] = None
    """Seconds the node may run; past that it fails with NodeTimeoutError (which may be retried)."""
    input_schema: Optional[Any] = None
    output_schema: Optional[Any] = None
    state_schema: Optional[type[BaseModel]] = None

    def __init__(self, /, **data: Any) -> None:
        # Checked here rather than in a validator, so the typed error is not rewrapped by pydantic.
        name = data.get("name")
        if not isinstance(name, str) or not name.isidentifier():
            raise WorkflowConfigurationError(f"Node name {name!r} must be a Python identifier, e.g. 'fetch_data'.")
        super().__init__(**data)

    def __eq__(self, other: object) -> bool:
        return self is other

    __hash__ = object.__hash__

    @property
    def requires_all_predecessors(self) -> bool:
        return False

    async def run(self, *, ctx: Context, node_input: Any) -> AsyncGenerator[Any, None]:
        node_input = _validated(self.input_schema, node_input, self.name, "input")
        agen = self._run_impl(ctx=ctx, node_input=node_input)
        try:
            async for item in agen:
                if item is None:
                    continue
                if isinstance(item, Event):
                    if item.output is not None and not self.exempt_from_output_schema(item.output):
                        item.output = _validated(self.output_schema, item.output, self.name, "output")
                    yield item
                elif isinstance(item, RequestInput) or self.exempt_from_output_schema(item):
                    yield item
                else:
                    yield _validated(self.output_schema, item, self.name, "output")
        finally:
            await agen.aclose()

    def exempt_from_output_schema(self, value: Any) -> bool:
        """An output the node may give whatever its output_schema says (a rejected confirmation's)."""
        return False

    async def _run_impl(self, *, ctx: Context, node_input: Any) -> AsyncGenerator[Any, None]:
        raise NotImplementedError(f"{type(self).__name__} must implement _run_impl")
        yield  # pragma: no cover


class Node(BaseNode):
    """The class to subclass for a custom node: override `_run_impl`."""


class _Start(BaseNode):
    async def _run_impl(self, *, ctx: Context, node_input: Any) -> AsyncGenerator[Any, None]:
        yield node_input


START = _Start(name="__START__")
"""Where every workflow begins; the successors of START get the workflow's input."""


class JoinNode(BaseNode):
    """Waits until every predecessor has finished, then outputs {predecessor name: its output}."""

    @property
    def requires_all_predecessors(self) -> bool:
        return True

    async def _run_impl(self, *, ctx: Context, node_input: Any) -> AsyncGenerator[Any, None]:
        yield node_input


def _validated(schema: Any, data: Any, node_name: str, what: str) -> Any:
    if schema is None or isinstance(schema, dict):
        return data  # as ADK: a raw JSON schema is documentation, not enforced
    if isinstance(data, types.Content):  # the user's message: its text, or JSON, as the schema wants
        data = unwrapped(data, schema)
    try:
        value = TypeAdapter(schema).validate_python(data)
    except Exception as error:  # noqa: BLE001 - pydantic's ValidationError, or a bad schema
        raise WorkflowDataError(f"The {what} of node {node_name!r} does not fit its {what}_schema: {error}") from error
    return value.model_dump(exclude_none=True) if isinstance(value, BaseModel) else value
