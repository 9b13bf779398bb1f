"""AgentNode: an agent (e.g. an LlmAgent) as a workflow node."""

from __future__ import annotations

import json
from typing import Any, AsyncGenerator, Optional

from google.genai import types
from pydantic import BaseModel, TypeAdapter

from domain.events import Event, NodeInfo
from projections.workflow import NODE_FACT_KEY
from runtime.workflow.base_node import BaseNode
from runtime.workflow.context import Context
from runtime.workflow.node_session import NodeSessionView


class AgentNode(BaseNode):
    """Runs `agent.run_async`; the agent's events are the node's events. As google-adk 2.13, an
    agent that works alone (no sub-agents) sees its node input as the user's turn, not the
    session's history; its output is its final answer (parsed by its output_schema, or its text),
    recorded on that answer's event."""

    agent: Any
    delegated: bool = False
    """A task a chat agent handed over (runtime.agents.task_mode.TaskAgentTool): its talk always
    starts with the call's arguments, the user's replies following in it."""

    async def _run_impl(self, *, ctx: Context, node_input: Any) -> AsyncGenerator[Any, None]:
        if getattr(self.agent, "mode", None) == "task":
            async for item in self._run_task(ctx, node_input):
                yield item
            return
        update: dict[str, Any] = {"agent": self.agent}
        if _works_alone(self.agent):
            # Only the node's own events, after its input (the invocation's message when the node
            # got no input), also when it runs again after a person's answer.
            seen = _invocation_message(ctx) if node_input is None else node_input
            first = None if seen is None else _input_event(ctx, seen)
            update["single_turn"] = True
            update["session"] = NodeSessionView(
                ctx.invocation_context.session, ctx.node_path, first, ctx.invocation_context.invocation_id
            )
        invocation = ctx.invocation_context.model_copy(update=update)
        # each run of the node is a run of its agent (a loop's next, a parallel worker's other item)
        invocation.end_of_agents.pop(self.agent.name, None)
        schema = getattr(self.agent, "output_schema", None)
        answered = ended = False
        agen = self.agent.run_async(invocation)
        try:
            async for event in agen:
                ended = ended or (event.author == self.agent.name and bool(event.actions.end_of_agent))
                asked = _asks_a_person(event)
                if asked:  # the node waits with its agent; the answer runs the agent again (as ADK)
                    ctx.interrupts.extend(asked)
                    ctx.waiting_told = list(ctx.interrupts)
                    event.custom_metadata = {
                        **(event.custom_metadata or {}), NODE_FACT_KEY: {"status": "waiting", "interrupts": list(ctx.interrupts)},
                    }
                if _is_answer(event):
                    answered = True
                    _record_answer(event, schema)
                yield event
        finally:
            await agen.aclose()
        if invocation.is_resumable and not ended and not ctx.interrupts and self.agent.name not in invocation.paused_agents:
            # its end, as ADK records it for each run (a sibling run of the same agent may have
            # recorded one for itself first)
            yield invocation.agent_state_event(self.agent.name, end_of_agent=True)
        if not answered:  # no answer (an agent that only transferred, say): the value it stored
            output_key = getattr(self.agent, "output_key", None)
            yield ctx.state.get(output_key) if output_key else None


    async def _run_task(self, ctx: Context, node_input: Any) -> AsyncGenerator[Any, None]:
        """A task-mode agent (runtime.agents.task_mode): each run is one turn of its talk with the
        user, who speaks first (the message the turn came with; as ADK). A text answer waits for
        the user's next message (USER_TURN), which continues the invocation; finish_task's
        arguments are the node's output, on that call's result event."""
        from runtime.agents.task_mode import FINISH_TASK, finish_tool, finished

        message = ctx.resume_inputs.get(USER_TURN)
        first = _input_event(ctx, message if message is not None and not self.delegated else node_input)
        view = TaskSessionView(ctx.invocation_context.session, ctx.node_path, first)
        invocation = ctx.invocation_context.model_copy(update={"agent": self.agent, "session": view})
        invocation.llm_context.forget(self.agent.name, invocation.branch)
        invocation.reset_agent_states(self.agent)  # each turn runs afresh on its talk (not a resumable pick-up)
        finish = finish_tool(self.agent)
        handed_in: Optional[dict[str, Any]] = None
        agen = self.agent.run_async(invocation)
        try:
            async for event in agen:
                calls = [c for c in event.get_function_calls() if c.name == FINISH_TASK]
                if calls:
                    handed_in = dict(calls[-1].args or {})
                elif handed_in is not None and finish is not None and finished(event):
                    event.output = _plain(finish.result_of(handed_in))
                    output_key = getattr(self.agent, "output_key", None)
                    if output_key:
                        event.actions.state_delta[output_key] = event.output
                    event.custom_metadata = {**(event.custom_metadata or {}), NODE_FACT_KEY: {"status": "completed"}}
                    yield event
                    return  # done: the agent does not answer its own result
                elif _is_answer(event):  # its turn ends: the node waits for the user's reply
                    ctx.interrupts.append(USER_TURN)
                    ctx.waiting_told = list(ctx.interrupts)
                    event.custom_metadata = {
                        **(event.custom_metadata or {}), NODE_FACT_KEY: {"status": "waiting", "interrupts": [USER_TURN]},
                    }
                yield event
        finally:
            await agen.aclose()


USER_TURN = "adk_user_turn"
"""What a task-mode agent node waits on between its turns: the user's next message."""


def waiting_for_user(session: Any) -> Optional[str]:
    """The invocation a task-mode agent node waits in for the user's reply: the last invocation,
    if any of its runs' latest fact says it waits on the user's turn (two agents on parallel
    branches may wait at once; each run that still waits takes the reply, as google-adk 2.13). The
    user's next message continues it."""
    from projections.workflow import node_fact
    from runtime.resume import is_state_marker

    events = session.events
    at = len(events) - 1
    while at >= 0 and is_state_marker(events[at]):  # a resumable app's checkpoints after the turn
        at -= 1
    if at < 0:
        return None
    invocation = events[at].invocation_id
    latest: dict[str, dict[str, Any]] = {}  # path -> its run's latest fact, read backwards
    for event in reversed(events[: at + 1]):
        if event.invocation_id != invocation:
            break
        fact = node_fact(event)
        if fact is not None:
            latest.setdefault(event.node_info.path, fact)
    waits = any(f.get("status") == "waiting" and USER_TURN in f.get("interrupts", ()) for f in latest.values())
    return invocation if waits else None


class TaskSessionView(NodeSessionView):
    """A task-mode agent's talk, after `first` (the message it answers now): its events at its path
    (in every invocation), and the user's messages meant for it. As google-adk 2.13 scopes them, a
    message is meant for the task whose talk went on last among those not finished when it came
    (two tasks waiting at once: the one that spoke last)."""

    def __init__(self, session: Any, path: str, first: Event) -> None:
        super().__init__(session, path, first, "")

    @property
    def events(self) -> list[Event]:
        from projections.workflow import node_fact

        talk: list[Event] = []
        open_tasks: dict[str, int] = {}  # an unfinished task's path -> where its talk last went on
        for at, event in enumerate(self._session.events):
            path = event.node_info.path
            task = next((t for t in open_tasks if path == t or path.startswith(t + "/")), None)
            fact = node_fact(event) if path else None
            if path == self._path or path.startswith(self._path + "/"):
                talk.append(event)
            if fact is not None and fact.get("status") == "waiting" and USER_TURN in fact.get("interrupts", ()):
                open_tasks[path] = at  # a task's turn ends: it waits for the user
            elif task is not None:
                if path == task and fact is not None and fact.get("status") == "completed":
                    del open_tasks[task]  # finished: the user's messages go elsewhere
                else:
                    open_tasks[task] = at
            elif event.author == "user" and open_tasks and not event.get_function_responses():
                if max(open_tasks, key=open_tasks.__getitem__) == self._path:
                    talk.append(event)
        return self._first + talk


def _asks_a_person(event: Event) -> list[str]:
    """The ids of the confirmation and credential requests an agent's event makes."""
    from runtime.resume import asks_a_person

    if not event.long_running_tool_ids or not asks_a_person(event):
        return []
    return [c.id for c in event.get_function_calls() if c.id in event.long_running_tool_ids]


def _works_alone(agent: Any) -> bool:
    """ADK's single-turn mode: an LLM agent without sub-agents (one with sub-agents chats)."""
    return hasattr(agent, "canonical_model") and not getattr(agent, "sub_agents", None)


def _invocation_message(ctx: Context) -> Any:
    """The message the invocation began with (not an answer that resumed it)."""
    invocation = ctx.invocation_context
    message = invocation.user_content
    if message is not None and any(p.function_response for p in message.parts or []):
        message = next((e.content for e in invocation.invocation_events()
                        if e.author == "user" and e.content and not e.get_function_responses()), None)
    return message


def _input_event(ctx: Context, node_input: Any) -> Event:
    """The node input as the user's turn, seen by this run of the agent only (never stored)."""
    if isinstance(node_input, types.Content):
        content = node_input.model_copy(update={"role": "user"})
    else:
        text = node_input if isinstance(node_input, str) else json.dumps(_plain(node_input))
        content = types.Content(role="user", parts=[types.Part(text=text)])
    return Event(
        invocation_id=ctx.invocation_context.invocation_id, author="user", content=content,
        branch=ctx.invocation_context.branch, node_info=NodeInfo(path=ctx.node_path),
    )


def _plain(value: Any) -> Any:
    return value.model_dump(mode="json") if isinstance(value, BaseModel) else TypeAdapter(Any).dump_python(value, mode="json")


def _is_answer(event: Event) -> bool:
    content = event.content
    return bool(
        not event.partial and content is not None and content.role == "model" and content.parts
        and not event.get_function_calls() and any(p.text and not p.thought for p in content.parts)
    )


def _record_answer(event: Event, schema: Any) -> None:
    """The answer is the node's output: with an output_schema, on the event as ADK puts it; else
    (ADK shows the message as the output) in the event's node fact."""
    text = "".join(p.text for p in event.content.parts if p.text and not p.thought)
    fact: dict[str, Any] = {"status": "completed"}
    if schema is not None and text.strip():
        value = TypeAdapter(schema).validate_json(text)
        event.output = value.model_dump() if isinstance(value, BaseModel) else _plain(value)
    else:
        fact["output"] = text
        event.node_info.message_as_output = True  # as ADK: the message is the output
    event.custom_metadata = {**(event.custom_metadata or {}), NODE_FACT_KEY: fact}
