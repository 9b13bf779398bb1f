"""AgentNode: an agent (e.g. an LlmAgent) as a workflow node."""

from __future__ import annotations

import json
from typing import Any, AsyncGenerator

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

    async def _run_impl(self, *, ctx: Context, node_input: Any) -> AsyncGenerator[Any, None]:
        update: dict[str, Any] = {"agent": self.agent}
        if _works_alone(self.agent):
            # Only the node's own events, after its input (none when it runs again after an answer;
            # the invocation's message when the node got no input).
            seen = _invocation_message(ctx) if node_input is None else node_input
            first = None if seen is None or ctx.resume_inputs else _input_event(ctx, seen)
            update["single_turn"] = True
            update["session"] = NodeSessionView(
                ctx.invocation_context.session, ctx.node_path, first, ctx.invocation_context.invocation_id
            )
        invocation = ctx.invocation_context.model_copy(update=update)
        schema = getattr(self.agent, "output_schema", None)
        answered = False
        agen = self.agent.run_async(invocation)
        try:
            async for event in agen:
                if _is_answer(event):
                    answered = True
                    _record_answer(event, schema)
                yield event
        finally:
            await agen.aclose()
        if not answered:  # no answer (an agent that only transferred, say): the value it stored
            output_key = getattr(self.agent, "output_key", None)
            yield ctx.state.get(output_key) if output_key else None


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
    event.custom_metadata = {**(event.custom_metadata or {}), NODE_FACT_KEY: fact}
