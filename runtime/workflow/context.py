"""Context: what a running node gets as `ctx`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Awaitable, Callable, Optional

from domain.events import EventActions
from runtime.contexts import CallbackContext
from runtime.invocation_context import InvocationContext
from runtime.workflow.state_schema import SchemaState

if TYPE_CHECKING:
    from runtime.workflow.base_node import BaseNode

RunChild = Callable[..., Awaitable[Any]]


class Context(CallbackContext):
    """A node's context: delta-tracking `state` (checked against the workflow's state_schema),
    `output` and `route` to set instead of yielding them, `run_node` for dynamic children, and
    where the node is (`node_path`, `attempt_count`)."""

    def __init__(
        self,
        invocation_context: InvocationContext,
        *,
        node_path: str,
        attempt_count: int,
        state_schema: Any,
        run_child: RunChild,
        workflow_log: Any = None,
        workflow_answers: Optional[dict[str, Any]] = None,
        resume_inputs: Optional[dict[str, Any]] = None,
    ) -> None:
        super().__init__(invocation_context, event_actions=EventActions())
        self.state_schema = state_schema
        self._state = SchemaState(invocation_context.session.state, self._event_actions.state_delta, state_schema)
        self.node_path = node_path
        self.attempt_count = attempt_count
        self.output: Any = None
        self.route: Any = None
        self._run_child = run_child
        # What a nested workflow resumes from, read once for the invocation: its node runs (WorkflowRuns)
        # and the client's answers to input requests.
        self.workflow_log = workflow_log
        self.workflow_answers: dict[str, Any] = workflow_answers or {}
        self.resume_inputs: dict[str, Any] = dict(resume_inputs or {})
        """The client's answers to this node's input requests (interrupt id -> response), when a
        node with rerun_on_resume=True runs again after them."""
        self.interrupts: list[str] = []  # the input requests this run made
        self.waiting_told: list[str] = []  # the requests the run's events already said it waits on
        self.held: Any = None  # the run's last output/route/state-only Event, not sent yet: its end may ride on it
        self.answered = False
        self.output_delegated = False  # a child run with use_as_output gave the output (its events said it)
        # an event of the run already said its output / route (else, as ADK, its end says them)
        self.output_said = False
        self.route_said = False

    @property
    def invocation_context(self) -> InvocationContext:
        return self._invocation_context

    def take_actions(self) -> EventActions:
        """The actions gathered so far (state changes, artifacts), for the next event; starts anew."""
        actions = self._event_actions
        self._event_actions = EventActions()
        self._state = SchemaState(
            self._invocation_context.session.state, self._event_actions.state_delta, self.state_schema
        )
        return actions

    async def run_node(
        self, node: BaseNode | Callable[..., Any], node_input: Any = None, *, name: Optional[str] = None,
        use_sub_branch: bool = False, use_as_output: bool = False,
    ) -> Any:
        """Runs `node` as a dynamic child of this node and returns its output. Its life is
        recorded under this node's path; a resumed run takes a finished child's output from the log.
        As ADK: `use_sub_branch` runs it on a branch of its own (parallel children that must not
        see each other), `use_as_output` makes its output this node's (not said again by this node)."""
        return await self._run_child(
            node, node_input, name=name, parent=self, use_sub_branch=use_sub_branch, use_as_output=use_as_output
        )
