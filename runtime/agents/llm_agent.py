"""LlmAgent: an agent driven by a model, with instructions, tools and sub-agents it can transfer to."""

from __future__ import annotations

import inspect
from typing import Annotated, Any, AsyncGenerator, Awaitable, Callable, ClassVar, Literal, Optional, Union

from google.genai import types
from pydantic import AfterValidator, BaseModel, Field, PrivateAttr, field_validator, model_validator

from domain.errors import InvalidArgumentError
from domain.events import Event
from runtime.agents.base_agent import BaseAgent
from runtime.agents.llm_model_calls import ADK_AGENT_NAME_LABEL_KEY, ModelCalls  # noqa: F401 - the label's name, here too
from runtime.agents.tool_calls import (
    run_answered_calls,
    run_function_calls,
    run_function_calls_as_completed,
)
from runtime.agents.llm_request_builder import build_request
from runtime.utils.output_schema import SchemaType, parse_output
from runtime.agents import llm_agent_fields as fields
from runtime.callbacks import as_list
from runtime.contexts import CallbackContext, ReadonlyContext
from runtime.invocation_context import InvocationContext
from runtime.models import BaseLlm, LlmRequest, LLMRegistry
from runtime.run_config import StreamingMode
from runtime.code_executors import BaseCodeExecutor
from runtime.planners import BasePlanner
from runtime.tools.base_tool import BaseTool, BaseToolset
from runtime.tools.function_tool import FunctionTool
from runtime.tools.set_model_response_tool import structured_answer
from runtime.tools.transfer_to_agent_tool import TransferToAgentTool

InstructionProvider = Callable[[ReadonlyContext], Union[str, Awaitable[str]]]
def _a_node(value: Any) -> Any:
    """A workflow or function node given as a tool (the agent wraps it: runtime.workflow.node_tool)."""
    if not _is_node(value):
        raise ValueError("not a workflow node")
    return value


ToolUnion = Union[Callable[..., Any], BaseTool, BaseToolset, Annotated[Any, AfterValidator(_a_node)]]
Callbacks = Optional[Union[Callable[..., Any], list[Callable[..., Any]]]]


class LlmAgent(ModelCalls, BaseAgent):
    """An agent that asks a model what to do, runs the tools it calls, and answers.

    Each model call sees the conversation folded incrementally (see runtime.agents.llm_context):
    the cost of a turn does not grow with the length of the session.
    """

    DEFAULT_MODEL: ClassVar[str] = "gemini-3.5-flash"
    """The model of an agent that sets none and has no LlmAgent ancestor that does (google-adk 2.13's)."""
    DEFAULT_LIVE_MODEL: ClassVar[str] = "gemini-live-2.5-flash-native-audio"
    _default_model: ClassVar[Union[str, BaseLlm]] = DEFAULT_MODEL
    _default_live_model: ClassVar[Union[str, BaseLlm]] = DEFAULT_LIVE_MODEL

    model: Union[str, BaseLlm] = ""
    """A model name (resolved by LLMRegistry), a BaseLlm, or '' to use the nearest ancestor's."""
    instruction: Union[str, InstructionProvider] = ""
    """The system instruction. `{key}` / `{key?}` / `{artifact.name}` are filled in from state and
    artifacts; a callable gets a ReadonlyContext and its result is used as is. With a
    static_instruction it is sent as a marked user content before the current turn instead."""
    global_instruction: Union[str, InstructionProvider] = ""
    """On the root agent: an instruction for every LlmAgent of the tree."""
    static_instruction: Optional[Union[str, types.Part, types.Content, list[Union[str, types.Part]]]] = None
    """Text sent first in the system instruction, as is (no `{key}` filling), so a provider can
    cache it. Only text: other parts are refused (see runtime.agents.static_instruction)."""
    tools: list[ToolUnion] = Field(default_factory=list)
    generate_content_config: Optional[types.GenerateContentConfig] = None
    planner: Optional[BasePlanner] = None
    """BuiltInPlanner sets the model's thinking_config; another planner adds its instruction to
    each request and rewrites each answer's parts (runtime.planners)."""
    code_executor: Optional[BaseCodeExecutor] = None
    """BuiltInCodeExecutor: the model runs code (Gemini's code-execution tool). Other executors
    are refused: Chronicle runs no model-written code itself."""
    mode: Optional[Literal["chat", "task", "single_turn"]] = None
    """google-adk 2.13's delegation mode: 'chat' (what a sub-agent gets by default), 'task' (it
    hands in its result by calling finish_task: runtime.agents.task_mode), or 'single_turn' (its
    chat agent calls it as a tool: runtime.agents.single_turn)."""
    parallel_worker: Optional[bool] = None
    """As a workflow node: run once per item of a list input, in parallel (each item on a branch of
    its own); the output is the list of the answers (runtime.workflow.parallel_worker)."""
    disallow_transfer_to_parent: bool = False
    disallow_transfer_to_peers: bool = False
    include_contents: Literal["default", "none"] = "default"
    """'default': the conversation so far; 'none': only the current turn."""
    input_schema: Optional[type[BaseModel]] = None
    output_schema: Optional[SchemaType] = None
    """The answer's form: a pydantic model class, `list[...]`, a dict (JSON schema) or a
    `types.Schema` (runtime.utils.output_schema)."""
    output_key: Optional[str] = None
    """Stores the agent's final answer (text, or the output_schema dict) in state under this key."""

    before_model_callback: Callbacks = None
    after_model_callback: Callbacks = None
    on_model_error_callback: Callbacks = None
    before_tool_callback: Callbacks = None
    after_tool_callback: Callbacks = None
    on_tool_error_callback: Callbacks = None

    _llm: Optional[BaseLlm] = PrivateAttr(default=None)
    _live_llm: Optional[BaseLlm] = PrivateAttr(default=None)
    _wrapped_tools: dict[int, BaseTool] = PrivateAttr(default_factory=dict)
    _transfer_tool: Optional[TransferToAgentTool] = PrivateAttr(default=None)

    # The field rules live in runtime.agents.llm_agent_fields.
    @model_validator(mode="before")
    @classmethod
    def _point_to_generate_content_config(cls, data: Any) -> Any:
        return fields.refuse_misplaced_settings(cls.model_fields, data)

    @field_validator("static_instruction")
    @classmethod
    def _check_static_instruction(cls, value: Any) -> Any:
        return fields.check_static_instruction(value)

    @field_validator("code_executor")
    @classmethod
    def _check_code_executor(cls, value: Optional[BaseCodeExecutor]) -> Optional[BaseCodeExecutor]:
        return fields.check_code_executor(value)

    @field_validator("mode", mode="before")
    @classmethod
    def _check_mode(cls, value: Any) -> Any:
        return fields.check_mode(value)

    def model_post_init(self, __context: Any) -> None:
        super().model_post_init(__context)
        for sub_agent in self.sub_agents:
            if isinstance(sub_agent, LlmAgent) and sub_agent.mode is None:
                sub_agent.mode = "chat"  # as google-adk marks them
        if self.mode == "task":
            from runtime.agents.task_mode import FinishTaskTool

            self.tools.append(FinishTaskTool(self))  # as google-adk adds it
        from runtime.agents.single_turn import delegation_tools

        self.tools.extend(delegation_tools(self.sub_agents))  # as google-adk adds them

    def _clear_caches(self) -> None:
        self._wrapped_tools = {}
        self._transfer_tool = None

    @field_validator("generate_content_config")
    @classmethod
    def _check_config(cls, config: Optional[types.GenerateContentConfig]) -> Optional[types.GenerateContentConfig]:
        return fields.check_generate_content_config(config)

    # -- resolution --------------------------------------------------------------------------

    @property
    def canonical_model(self) -> BaseLlm:
        if isinstance(self.model, BaseLlm):
            return self.model
        if self.model:
            if self._llm is None or self._llm.model != self.model:
                self._llm = LLMRegistry.new_llm(self.model)
            return self._llm
        ancestor = self.parent_agent
        while ancestor is not None:
            if isinstance(ancestor, LlmAgent) and ancestor.model:
                return ancestor.canonical_model
            ancestor = ancestor.parent_agent
        default = type(self)._default_model
        if isinstance(default, BaseLlm):
            return default
        if self._llm is None or self._llm.model != default:
            self._llm = LLMRegistry.new_llm(default)
        return self._llm

    @property
    def canonical_live_model(self) -> BaseLlm:
        """The model for live (run_live) mode: the agent's or an ancestor's, else the default
        live model (``set_default_live_model``)."""
        if isinstance(self.model, BaseLlm) or self.model:
            return self.canonical_model
        ancestor = self.parent_agent
        while ancestor is not None:
            if isinstance(ancestor, LlmAgent):
                return ancestor.canonical_live_model
            ancestor = ancestor.parent_agent
        default = type(self)._default_live_model
        if isinstance(default, BaseLlm):
            return default
        if self._live_llm is None or self._live_llm.model != default:
            self._live_llm = LLMRegistry.new_llm(default)
        return self._live_llm

    async def canonical_model_async(self, ctx: ReadonlyContext) -> BaseLlm:
        """The model for one invocation (google-adk 2.13's async form of canonical_model)."""
        return self.canonical_model

    @classmethod
    def set_default_model(cls, model: Union[str, BaseLlm]) -> None:
        """Sets the model of agents (of this class and its subclasses) that set none."""
        cls._default_model = _checked_default(model, "model")

    @classmethod
    def set_default_live_model(cls, model: Union[str, BaseLlm]) -> None:
        cls._default_live_model = _checked_default(model, "live model")

    async def canonical_instruction(self, ctx: ReadonlyContext) -> tuple[str, bool]:
        """The instruction text, and whether it bypasses state templating (callables do)."""
        return await _resolve_instruction(self.instruction, ctx)

    async def canonical_global_instruction(self, ctx: ReadonlyContext) -> tuple[str, bool]:
        return await _resolve_instruction(self.global_instruction, ctx)

    async def canonical_tools(self, ctx: Optional[ReadonlyContext] = None) -> list[BaseTool]:
        return [tool for _, group in await self.tool_groups(ctx) for tool in group]

    async def tool_groups(self, ctx: Optional[ReadonlyContext] = None) -> list[tuple[Any, list[BaseTool]]]:
        """Each entry of `tools` with the tools it stands for: (the toolset, its tools) for a
        toolset (it edits the request before its tools do), (None, [tool]) for anything else."""
        groups: list[tuple[Any, list[BaseTool]]] = []
        for item in self.tools:
            if isinstance(item, BaseTool):
                groups.append((None, [item]))
            elif _is_node(item):  # a workflow or function node: the model calls it (runtime.workflow.node_tool)
                from runtime.workflow.node_tool import NodeTool

                wrapped = self._wrapped_tools.get(id(item))
                if wrapped is None or wrapped.given is not item:  # type: ignore[attr-defined]
                    wrapped = self._wrapped_tools[id(item)] = NodeTool(item)
                groups.append((None, [wrapped]))
            elif isinstance(item, BaseToolset) or (hasattr(item, "get_tools") and not callable(item)):
                groups.append((item, await getattr(item, "get_tools_with_prefix", item.get_tools)(ctx)))
            elif callable(item):
                wrapped = self._wrapped_tools.get(id(item))
                if wrapped is None or wrapped.func is not item:  # type: ignore[attr-defined]
                    wrapped = self._wrapped_tools[id(item)] = FunctionTool(item)
                groups.append((None, [wrapped]))
            else:
                raise InvalidArgumentError(
                    f"Agent {self.name!r} has a tool of type {type(item).__name__}; tools must be "
                    "functions, BaseTool or BaseToolset instances."
                )
        return groups

    def transfer_targets(self) -> list[BaseAgent]:
        """The agents this one may hand the conversation to."""
        from runtime.agents.single_turn import DELEGATED_MODES

        # a single-turn or task agent is a tool of its chat agent, never a transfer's target (as ADK)
        targets: list[BaseAgent] = [a for a in self.sub_agents if getattr(a, "mode", None) not in DELEGATED_MODES]
        parent = self.parent_agent
        if parent is None or not isinstance(parent, LlmAgent):
            return targets
        if not self.disallow_transfer_to_parent:
            targets.append(parent)
        if not self.disallow_transfer_to_peers:
            targets.extend(
                p for p in parent.sub_agents if p is not self and getattr(p, "mode", None) not in DELEGATED_MODES
            )
        return targets

    @property
    def canonical_before_model_callbacks(self) -> list[Callable[..., Any]]:
        return as_list(self.before_model_callback)

    @property
    def canonical_after_model_callbacks(self) -> list[Callable[..., Any]]:
        return as_list(self.after_model_callback)

    @property
    def canonical_on_model_error_callbacks(self) -> list[Callable[..., Any]]:
        return as_list(self.on_model_error_callback)

    @property
    def canonical_before_tool_callbacks(self) -> list[Callable[..., Any]]:
        return as_list(self.before_tool_callback)

    @property
    def canonical_after_tool_callbacks(self) -> list[Callable[..., Any]]:
        return as_list(self.after_tool_callback)

    @property
    def canonical_on_tool_error_callbacks(self) -> list[Callable[..., Any]]:
        return as_list(self.on_tool_error_callback)

    # -- the loop ------------------------------------------------------------------------------

    async def _handle_before_agent_callback(self, ctx: InvocationContext) -> tuple[Optional[Event], bool]:
        event, skip = await super()._handle_before_agent_callback(ctx)
        if event is not None:
            self._maybe_save_output_to_state(event)  # a callback's answer is the agent's output
        return event, skip

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        """Model call, tool calls, model call, … until the model answers without calling a tool.

        In a resumable app a long-running tool call pauses the agent (after its tools ran), and a
        resumed invocation first finishes what its events left open (see runtime.resume)."""
        if ctx.resumes(self.name):
            go_on = True
            async for event in self._resume(ctx):
                if event is None:
                    go_on = False
                    continue
                yield event
            if not go_on:
                return
        async for event in self._run_answered_calls(ctx):
            yield event
        if self.name in ctx.paused_agents or ctx.end_invocation:
            return
        while True:
            last: Optional[Event] = None
            step = self._run_one_step(ctx)
            try:
                async for event in step:
                    last = event
                    self._maybe_save_output_to_state(event)
                    yield event
            finally:
                await step.aclose()
            if self.name in ctx.paused_agents:
                return
            if last is None or last.is_final_response() or last.partial or ctx.end_invocation:
                return

    async def _resume(self, ctx: InvocationContext) -> AsyncGenerator[Optional[Event], None]:
        """Finishes what a resumed invocation's events left open for this agent. Yields the events
        to commit, then None if the agent must not go on to call the model."""
        from runtime.resume import llm_resume_point, only_calls

        ran_calls = False
        while True:
            point = llm_resume_point(
                self.name, ctx.invocation_events(ctx.branch), {n for n, done in ctx.end_of_agents.items() if done}
            )
            if point.kind == "run_calls" and not ran_calls:
                ran_calls = True  # once: calls that fail again are not retried in a loop
                request = await build_request(self, ctx)
                original = point.call_event
                assert original is not None
                async for event in self._handle_calls(ctx, only_calls(original, point.call_ids), request):
                    self._maybe_save_output_to_state(event)
                    yield event
                if self.name in ctx.paused_agents or ctx.end_invocation:
                    yield None
                    return
                continue  # what is left open now
            if point.kind == "paused":
                ctx.paused_agents.add(self.name)
                yield None
            elif point.kind == "transfer":
                target = self.root_agent.find_agent(point.target or "")
                if target is None:
                    raise InvalidArgumentError(
                        f"Agent {self.name!r} had transferred to {point.target!r}, which is no longer in the agent tree."
                    )
                agen = target.run_async(ctx)
                try:
                    async for event in agen:
                        yield event
                finally:
                    await agen.aclose()
                if target.name in ctx.paused_agents:
                    ctx.paused_agents.add(self.name)
                yield None
            elif point.kind == "done":
                yield None
            # "fresh" and "model": go on as usual
            return

    async def _run_answered_calls(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        """Runs again the calls a person has just answered for (approved, rejected, or supplied a
        credential to), read from the log: the rejected ones get ADK's rejection, never a run."""
        from runtime.agents.human_requests import answered_calls

        answered = answered_calls(ctx.session.live_events(), self.name)
        if not answered:
            return
        for item in answered:
            if item.auth_config is not None:
                await _load_supplied_credential(ctx, item.auth_config)
        request = await build_request(self, ctx)
        calls = [a.call for a in answered]
        confirmations = {a.call.id: a.confirmation for a in answered if a.confirmation is not None}
        call_event = Event(
            invocation_id=ctx.invocation_id, author=self.name, content=types.Content(role="model", parts=[
                types.Part(function_call=c) for c in calls
            ])
        )
        async for result in run_answered_calls(ctx, self, calls, request.tools_dict, confirmations):
            async for event in self._with_requests(ctx, call_event, result):
                yield event

    async def _with_requests(self, ctx: InvocationContext, call_event: Event, result: Event) -> AsyncGenerator[Event, None]:
        """Yields a function-response event and, when its tools asked a person for something,
        the event holding those requests, in google-adk 2.13's order: the requests first, unless
        the results include a settled one (a sibling call that needs no one), which then comes
        first. Then this agent pauses (resumable apps); without ResumabilityConfig a credential
        request ends the invocation, and after a confirmation request the turn goes on as its
        last event says (a `require_confirmation` placeholder ends it; a tool that asked itself
        gets the model's answer to its result), as in ADK.

        A crash between the two events loses nothing: a call whose request is in the log waits
        for the answer, with or without its placeholder (runtime.resume.llm_resume_point)."""
        from runtime.agents.human_requests import redact_requested_auth, request_event

        asks = request_event(ctx, self.name, call_event, result)
        redact_requested_auth(result)
        if asks is None:
            yield result
            answer = structured_answer(ctx, self.name, result)
            if answer is not None:  # set_model_response: its validated result is the agent's answer
                yield answer
            return
        actions = result.actions
        awaiting = actions.requested_tool_confirmations
        settled = not actions.requested_auth_configs and any(
            r.id not in awaiting for r in result.get_function_responses()
        )
        if settled:
            actions.skip_summarization = None  # the settled results are for the model to answer
            yield result
            yield asks
        else:
            yield asks
            yield result
        if ctx.is_resumable:
            ctx.paused_agents.add(self.name)
        elif actions.requested_auth_configs:
            ctx.end_invocation = True

    async def _run_one_step(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        from runtime.agents.toolset_auth import resolve_toolset_auth

        asks = await resolve_toolset_auth(ctx, self)
        if asks is not None:  # a toolset's credential is missing: ask for it and end (ADK's pause)
            yield asks
            ctx.end_invocation = True
            return
        request = await build_request(self, ctx)
        if ctx.end_invocation:
            return
        stream = ctx.run_config.streaming_mode == StreamingMode.SSE
        async for event in self._call_model(ctx, request, stream):
            yield event
            if event.partial or not event.get_function_calls():
                continue
            async for result in self._handle_calls(ctx, event, request):
                yield result

    async def _handle_calls(
        self, ctx: InvocationContext, call_event: Event, request: LlmRequest
    ) -> AsyncGenerator[Event, None]:
        """Runs the calls of a (committed) model turn, yields their results, follows a transfer,
        and marks this agent paused when the turn made a long-running call in a resumable app."""
        pauses = ctx.should_pause_invocation(call_event)
        transfer_to: Optional[str] = None
        if ctx.is_resumable and len(call_event.get_function_calls()) > 1:
            # Each result is committed as soon as its tool returns: a crash in a sibling tool
            # does not lose it, and a resume runs only the calls without a stored result.
            async for result in run_function_calls_as_completed(ctx, self, call_event, request.tools_dict):
                async for event in self._with_requests(ctx, call_event, result):
                    yield event
                transfer_to = result.actions.transfer_to_agent or transfer_to
        else:
            # No result: only long-running calls, whose results come later.
            async for result in run_function_calls(ctx, self, call_event, request.tools_dict):
                async for event in self._with_requests(ctx, call_event, result):
                    yield event
                transfer_to = result.actions.transfer_to_agent
        if self.name in ctx.paused_agents:  # a tool asked a person for something
            return
        if pauses:
            ctx.paused_agents.add(self.name)
            return
        if transfer_to:
            target = self.root_agent.find_agent(transfer_to)
            if target is None:
                raise InvalidArgumentError(
                    f"Agent {self.name!r} transferred to {transfer_to!r}, which is not in the agent tree."
                )
            agen = target.run_async(ctx)
            try:
                async for sub_event in agen:
                    yield sub_event
            finally:
                await agen.aclose()
            if target.name in ctx.paused_agents:
                ctx.paused_agents.add(self.name)

    def transfer_tool_for(self, targets: list[BaseAgent]) -> TransferToAgentTool:
        """The transfer tool for these targets (one instance while they stay the same)."""
        names = [t.name for t in targets]
        if self._transfer_tool is None or self._transfer_tool.agent_names != names:
            self._transfer_tool = TransferToAgentTool(names)
        return self._transfer_tool

    def _maybe_save_output_to_state(self, event: Event) -> None:
        if not self.output_key or event.author != self.name or not event.is_final_response():
            return
        if self.mode == "task":
            return  # a task's result is finish_task's, not a text turn's (runtime.agents.task_mode)
        if not event.content or not event.content.parts:
            return
        if not any(p.text is not None and not p.thought for p in event.content.parts):
            return  # a response without text (exit_loop's, say) keeps the last text, as in google-adk
        text = "".join(p.text for p in event.content.parts if p.text and not p.thought)
        if self.output_schema is not None:
            if not text.strip():
                return
            value: Any = parse_output(self.output_schema, text)
        else:
            value = text
        event.actions.state_delta[self.output_key] = value


Agent = LlmAgent


async def _load_supplied_credential(ctx: InvocationContext, auth_config: Any) -> None:
    """Puts the credential the client supplied (kept by the credential service, not the log) in
    `temp:` state, where the tool's `get_auth_response` finds it for this invocation only."""
    from runtime.auth.auth_handler import auth_response_state_key

    if ctx.credential_service is None:
        return
    credential = await ctx.credential_service.load_credential(auth_config, CallbackContext(ctx))
    if credential is not None:
        ctx.session.state[auth_response_state_key(auth_config)] = credential.model_dump(mode="json", by_alias=True, exclude_none=True)


def _is_node(item: Any) -> bool:
    from runtime.workflow.node_tool import is_node

    return is_node(item)


def _checked_default(model: Any, what: str) -> Union[str, BaseLlm]:
    if not isinstance(model, (str, BaseLlm)):
        raise TypeError(f"The default {what} must be a model name (str) or a BaseLlm, got {type(model).__name__}.")
    if isinstance(model, str) and not model:
        raise ValueError(f"The default {what} must be a non-empty name.")
    return model


async def _resolve_instruction(instruction: Union[str, InstructionProvider], ctx: ReadonlyContext) -> tuple[str, bool]:
    if isinstance(instruction, str):
        return instruction, False
    # Called inline, not in a thread: providers build a string from the context and are quick.
    text = instruction(ctx)
    if inspect.isawaitable(text):
        text = await text
    return str(text), True


# google-adk 2.13's callback type aliases at its path (their home: runtime.agents.callback_types).
from runtime.agents.callback_types import (  # noqa: E402
    AfterModelCallback,
    AfterToolCallback,
    BeforeModelCallback,
    BeforeToolCallback,
    OnModelErrorCallback,
    OnToolErrorCallback,
)
