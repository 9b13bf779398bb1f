"""The Runner: drives an agent through one invocation and commits what it yields.

The loop (ADK's, with its guarantees made explicit):

1. the user's message is appended first, carrying `state_delta` if one is given;
2. the agent to run is chosen (the root, or the agent that answered last if it can transfer back);
3. every event the agent yields goes through the plugins' `on_event`; a non-partial event is
   appended (its state and artifact deltas committed) *before* it is yielded upstream and before
   the agent resumes, so code after a `yield` sees the committed state; partial events are
   forwarded, never stored;
4. the invocation ends when the agent's generator is exhausted.

In a resumable app (`ResumabilityConfig(is_resumable=True)`) a long-running tool call pauses the
invocation and `run_async(invocation_id=..., new_message=<FunctionResponse>)` resumes it from
its events (runtime.resume). `rewind_async` takes a session back to before an invocation
(runtime.rewind).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, AsyncGenerator, Optional, Sequence

from google.genai import types

from domain.errors import InvalidArgumentError, StaleSessionError
from domain.events import Event, EventActions
from domain.log_only import is_log_only
from domain.session import Session
from runtime.agents.base_agent import BaseAgent
from runtime.app import App, ResumabilityConfig
from runtime.invocation_context import InvocationContext, new_invocation_context_id
from runtime.plugins.base_plugin import BasePlugin
from runtime.replay import ReplayReport
from runtime.agents.human_requests import accept_answers
from runtime.agents.node_path import place as place_in_tree
from runtime.agent_choice import agent_to_run, matching_function_call
from runtime.events.error_events import invocation_error_event
from runtime.cancellation import Aborted, cancel_invocation, cancelled_elsewhere, next_unless_aborted, seal
from runtime.resume import invocation_of_calls_answered_by, invocation_start, paused_invocation_answered_by
from runtime.plugins.event_replacement import merge_replacement
from runtime.run_without_message import continues_conversation
from runtime.plugins.plugin_manager import PluginManager
from runtime.run_config import RunConfig
from runtime.runner_conveniences import RunnerConveniences
from runtime.session_cache import SessionCache
from runtime.sessions.base import BaseSessionService
from runtime.telemetry import live as telemetry

logger = logging.getLogger("chronicle.runner")

class Runner(RunnerConveniences):
    session_cache_size: int = 256
    """How many sessions' events and LLM contexts the Runner keeps between invocations (least
    recently used are dropped; a dropped session is simply re-read on its next turn)."""

    def __init__(
        self,
        *,
        app: Optional[App] = None,
        app_name: Optional[str] = None,
        agent: Optional[BaseAgent] = None,
        node: Any = None,
        plugins: Optional[Sequence[BasePlugin]] = None,
        session_service: BaseSessionService,
        artifact_service: Any = None,
        memory_service: Any = None,
        credential_service: Any = None,
        auto_create_session: bool = False,
        plugin_close_timeout: float = 5.0,
    ):
        if sum(x is not None for x in (app, agent, node)) != 1:
            raise InvalidArgumentError(
                "Give the Runner exactly one of app=App(...), agent=... (with app_name) or node=... (a workflow node)."
            )
        if node is not None:
            from runtime.workflow import as_root_agent

            agent = as_root_agent(node)
            app_name = app_name or agent.name
        if app is not None:
            if plugins:
                raise InvalidArgumentError("With app=..., register plugins on the App, not on the Runner.")
            app_name = app_name or app.name
            agent = app.root_agent
            plugins = app.plugins
            self.resumability_config: Optional[ResumabilityConfig] = app.resumability_config
        else:
            if not app_name:
                raise InvalidArgumentError("Give the Runner app=App(...), or both agent=... and app_name=....")
            self.resumability_config = None
        if not isinstance(agent, BaseAgent):
            raise InvalidArgumentError(f"The Runner's agent must be a BaseAgent, got {type(agent).__name__}")
        if session_service is None:
            raise InvalidArgumentError("The Runner needs a session_service (e.g. InMemorySessionService()).")
        # As in ADK 2.13, a Runner always has an App: a bare agent or node is wrapped in one.
        self.app: App = app or App.model_construct(name=app_name, root_agent=agent, plugins=list(plugins or []))
        self.app_name: str = app_name
        self.context_cache_config = self.app.context_cache_config
        self.agent: BaseAgent = agent
        self.session_service = session_service
        self.artifact_service = artifact_service
        self.memory_service = memory_service
        self.credential_service = credential_service
        self.auto_create_session = auto_create_session
        self.plugin_manager = PluginManager(plugins=plugins, close_timeout=plugin_close_timeout)
        self._sessions = SessionCache(self.session_cache_size)
        self._owned_services: list[Any] = []
        self._closed = False

    # -- the event loop ----------------------------------------------------------------------

    async def run_async(
        self,
        *,
        user_id: str,
        session_id: str,
        new_message: Optional[types.Content] = None,
        invocation_id: Optional[str] = None,
        state_delta: Optional[dict[str, Any]] = None,
        run_config: Optional[RunConfig] = None,
        yield_user_message: bool = False,
        abort_signal: Optional[asyncio.Event] = None,
    ) -> AsyncGenerator[Event, None]:
        """Runs one invocation and yields its events (each non-partial one already committed).

        Setting `abort_signal` cancels the invocation: the running step is cancelled, its
        dangling calls are answered with a "cancelled" error, and those events end the run (see
        `cancel_async` to cancel from another process)."""
        run_config = run_config or RunConfig()
        if new_message is not None and not isinstance(new_message, types.Content):
            raise InvalidArgumentError(
                f"new_message must be a google.genai.types.Content, got {type(new_message).__name__}; e.g. "
                "types.Content(role='user', parts=[types.Part(text='Hi')])"
            )
        if new_message is not None and not new_message.role:
            new_message.role = "user"

        entry = await self._sessions.load(
            self.session_service, self.app_name, user_id, session_id, run_config.get_session_config,
            create=self.auto_create_session,
        )
        session = entry.session
        resumable = self.is_resumable
        replying: Optional[str] = None
        if invocation_id is None and resumable and new_message is not None:
            # A result for a paused long-running call resumes the invocation that made the call.
            invocation_id = paused_invocation_answered_by(session.live_events(), new_message)
            if invocation_id is None:  # or a reply to a task agent waiting for the user
                invocation_id = replying = replied_to(session)
        answered = None
        if not resumable and new_message is not None:
            # As ADK 2.13: results for calls of one invocation are recorded in it (a given id yields).
            answered = invocation_of_calls_answered_by(session.live_events(), new_message)
            if answered and invocation_id and invocation_id != answered:
                logger.warning(
                    "Provided invocation_id %s is ignored because new_message has a function response "
                    "with invocation_id %s.", invocation_id, answered,
                )
        resume_at: Optional[int] = None
        if new_message is None and continues_conversation(
            self.agent, session, invocation_id=invocation_id, resumable=resumable, user_id=user_id
        ):
            pass  # the agent runs on the conversation so far (runtime.run_without_message)
        elif answered:
            invocation_id = answered
        elif invocation_id is not None:
            resume_at = self._check_invocation_id(session, invocation_id, new_message)
        elif not resumable and new_message is not None:
            invocation_id = replied_to(session)  # a reply to a task agent waiting for the user
        ctx = InvocationContext(
            invocation_id=invocation_id or new_invocation_context_id(),
            session=session,
            agent=self.agent,
            session_service=self.session_service,
            artifact_service=self.artifact_service,
            memory_service=self.memory_service,
            credential_service=self.credential_service,
            plugin_manager=self.plugin_manager,
            user_content=new_message,
            run_config=run_config,
            llm_context=entry.llm_context,
            is_resumable=resumable,
        )
        entry_agent: Optional[BaseAgent] = None
        if resume_at is not None:
            # The agent the invocation started with runs again; the log says how far it got.
            live = session.live_events()
            first = live[resume_at]
            entry_agent = agent_to_run(self.agent, live[: resume_at + (first.author == "user")])
            ctx.begin_resume(resume_at, self.agent)
            if replying:  # a task agent's talk goes on in the invocation its workflow ended (as ADK)
                ctx.end_of_agents.pop(entry_agent.name, None)
            if ctx.end_of_agents.get(entry_agent.name):
                if new_message is not None:
                    raise InvalidArgumentError(
                        f"Invocation {invocation_id!r} has finished; send the message without invocation_id "
                        "to start a new one."
                    )
                if not _runs_finished_again(self.agent):
                    self._sessions.remember(entry)
                    return
                # as google-adk 2.13 runs an LLM agent or a workflow (its node runtime): asked to resume
                # a finished invocation, it runs it again (a workflow says its nodes' outputs again
                # from its log; an agent answers afresh); other agents find it finished
                ctx.reset_agent_states(entry_agent)
            if new_message is None and first.author == "user":
                ctx.user_content = first.content
        plugins = self.plugin_manager
        telemetry.begin(ctx)
        try:
            # 1. The user's message, first.
            if new_message is not None:
                replaced = await plugins.run_on_user_message_callback(invocation_context=ctx, user_message=new_message)
                if replaced is not None:
                    new_message = replaced
                    ctx.user_content = replaced
                if not new_message.parts:
                    raise InvalidArgumentError("new_message has no parts; send at least one Part.")
                if any(part.function_call for part in new_message.parts):
                    raise InvalidArgumentError(
                        "A user message cannot contain function calls (only the model calls functions); "
                        "send text, or a FunctionResponse that answers a call."
                    )
                new_message = await accept_answers(ctx, new_message)
            if new_message is not None or state_delta:
                user_event = Event(
                    invocation_id=ctx.invocation_id,
                    author="user",
                    content=new_message,
                    actions=EventActions(state_delta=dict(state_delta)) if state_delta else EventActions(),
                )
                _apply_custom_metadata(user_event, run_config)
                call_event = matching_function_call(session.live_events(), user_event)
                if call_event is not None:
                    user_event.branch = call_event.branch
                await self.session_service.append_event(session, user_event)
                if yield_user_message:
                    yield user_event

            # 2. Who answers.
            ctx.agent = entry_agent or agent_to_run(self.agent, session.live_events())

            # 3. Run it, committing each event before passing it on. An exception the agent raises
            # is recorded (runtime.events.error_events), then raised.
            early = await plugins.run_before_run_callback(invocation_context=ctx)
            if isinstance(early, types.Content):
                event = Event(invocation_id=ctx.invocation_id, author="model", content=early)
                yield await self._commit(ctx, event)
            else:
                agen = ctx.agent.run_async(ctx)
                try:
                    while True:
                        try:
                            event = await next_unless_aborted(agen, abort_signal)
                        except StopAsyncIteration:
                            break
                        except Aborted:
                            for sealed in await seal(self.session_service, ctx.session, ctx.invocation_id, self.agent.name, ""):
                                yield sealed
                            return
                        except Exception as error:
                            failed = await self._record_error(ctx, error)
                            if failed is not None:
                                yield failed
                            raise
                        try:
                            committed = await self._commit(ctx, event)
                        except StaleSessionError:
                            if await cancelled_elsewhere(self.session_service, ctx):
                                return  # Runner.cancel_async sealed it: stop quietly, as ADK's abort does
                            raise
                        if not is_log_only(committed):  # a fact for Chronicle's own readers (domain.log_only)
                            yield committed
                finally:
                    await agen.aclose()
            await plugins.run_after_run_callback(invocation_context=ctx)
            await self._maybe_compact(session)
        except Exception as error:  # the plugins hear of it (a notification), then it propagates
            await plugins.run_on_run_error_callback(invocation_context=ctx, error=error)
            raise
        finally:
            telemetry.end(ctx)
            self._sessions.remember(entry)

    async def _maybe_compact(self, session: Session) -> None:
        """Records a compaction event if the App's EventsCompactionConfig says one is due. A
        summariser that fails is logged, not raised: the invocation's events are committed, and
        the next invocation tries again."""
        config = self.app.events_compaction_config
        if config is None:
            return
        from runtime.compaction import maybe_compact

        try:
            await maybe_compact(
                config, session, self.session_service, default_llm=getattr(self.agent, "canonical_model", None)
            )
        except Exception:  # noqa: BLE001
            logger.warning("Compacting session %s failed; will retry after the next invocation.", session.id, exc_info=True)

    async def _record_error(self, ctx: InvocationContext, error: Exception) -> Optional[Event]:
        """Commits the event that records the agent's failure, if ADK records one for this root
        agent. Failing to record it must not hide the agent's error: that is logged instead."""
        failed = invocation_error_event(self.agent, ctx, error)
        if failed is None:
            return None
        try:
            return await self._commit(ctx, failed)
        except Exception:  # noqa: BLE001 - the agent's error is the one to raise
            logger.warning("Could not record the failure of invocation %s.", ctx.invocation_id, exc_info=True)
            return None

    async def _commit(self, ctx: InvocationContext, event: Event) -> Event:
        run_config = ctx.run_config
        place_in_tree(self.agent, event)
        _apply_custom_metadata(event, run_config)
        replaced = await self.plugin_manager.run_on_event_callback(invocation_context=ctx, event=event)
        if replaced is not None:
            if not isinstance(replaced, Event):
                raise InvalidArgumentError(
                    f"on_event_callback returned {type(replaced).__name__}; return an Event (or None)."
                )
            _apply_custom_metadata(replaced, run_config)
            event = merge_replacement(event, replaced)
        if not event.partial:
            await self.session_service.append_event(ctx.session, event)
            telemetry.logged(ctx, event)
        return event

    # -- cancellation ----------------------------------------------------------------------------

    async def cancel_async(
        self, *, user_id: str, session_id: str, invocation_id: str, reason: str = ""
    ) -> list[Event]:
        """Cancels an invocation, running in any process or paused, by appending the events that
        seal it (runtime.events.abort_events): its dangling calls and open requests get a
        "cancelled" response. The process running it stops at its next append. Returns the
        events appended ([] if it was already sealed)."""
        return await cancel_invocation(
            self.session_service, self.app_name, self.agent.name,
            user_id=user_id, session_id=session_id, invocation_id=invocation_id, reason=reason,
        )

    # -- sessions ----------------------------------------------------------------------------

    @property
    def is_resumable(self) -> bool:
        return bool(self.resumability_config and self.resumability_config.is_resumable)

    def forget_session(self, user_id: str, session_id: str) -> None:
        """Drops what this Runner keeps of a session between invocations (its events and LLM
        context), for a caller done with it or about to change it; a later turn reads it again."""
        self._sessions.forget(user_id, session_id)

    def _check_invocation_id(
        self, session: Session, invocation_id: str, new_message: Optional[types.Content]
    ) -> Optional[int]:
        """Where the invocation to resume starts in the session's events, or None for a new
        invocation that uses the caller's id."""
        start = invocation_start(session.live_events(), invocation_id)
        if not self.is_resumable:
            if start is not None:
                raise InvalidArgumentError(
                    f"Invocation id {invocation_id!r} is already used in session {session.id!r}; "
                    "leave invocation_id out to get a new one (resuming invocations needs "
                    "ResumabilityConfig(is_resumable=True) on the App)."
                )
            return None
        if start is None:
            return None
        from runtime.events.abort_events import was_cancelled

        if was_cancelled(session.live_events(), invocation_id):
            raise InvalidArgumentError(
                f"Invocation {invocation_id!r} was cancelled; send the message without invocation_id to start a new one."
            )
        return start

    # -- rewind ------------------------------------------------------------------------------

    async def rewind_async(self, *, user_id: str, session_id: str, rewind_before_invocation_id: str) -> Event:
        """Takes the session back to just before an invocation, and returns the rewind's marker event.

        As in google-adk, the session's files the rewound events touched come back first through
        the artifact service, each as a new version holding its earlier bytes (files created since
        are deleted; rewinding the rewind brings them back), and then one event is appended (the
        marker, whose `artifact_delta` names those new versions). Afterwards the session's state --
        the state it was created with included -- is what it was before that invocation, keys
        created since read as absent. The rewound events stay in `get_session().events`, followed
        by the marker, as in ADK; `session.filter_events()` and the model's context leave them
        out. `app:` and `user:` state and `user:` files are shared with other sessions and are not
        rolled back.

        Rewinding the marker's own invocation undoes the rewind. An invocation id that is unknown
        or already rewound raises InvocationNotFoundError, and nothing is written."""
        from runtime.rewind import rewind_with_files

        if getattr(self.session_service, "rewind_session", None) is None:
            raise InvalidArgumentError(
                f"{type(self.session_service).__name__} cannot rewind; use one of Chronicle's session "
                "services (InMemorySessionService, SqliteSessionService, PostgresSessionService)."
            )
        # Whatever this Runner holds of the session is about to be out of date.
        self.forget_session(user_id, session_id)
        marker, _ = await rewind_with_files(
            self.session_service,
            self.artifact_service,
            app_name=self.app_name,
            user_id=user_id,
            session_id=session_id,
            rewind_before_invocation_id=rewind_before_invocation_id,
        )
        return marker

    # -- replay ------------------------------------------------------------------------------

    async def replay(
        self,
        *,
        user_id: str,
        session_id: str,
        new_session_id: Optional[str] = None,
        from_invocation_id: Optional[str] = None,
        run_config: Optional[RunConfig] = None,
    ) -> ReplayReport:
        """Re-runs a session's user messages through this Runner's agent, in a fork, and reports
        per turn where the new answers (final text) and tool calls differ from the recorded ones.

        The source session is never touched: the replay runs in a new session (`new_session_id`,
        or a fresh id) forked just before the first replayed turn -- the first turn, or
        `from_invocation_id` to keep the history before it -- with the session's files copied.
        See runtime.replay."""
        from runtime.replay import replay_session

        return await replay_session(
            self,
            user_id=user_id,
            session_id=session_id,
            new_session_id=new_session_id,
            from_invocation_id=from_invocation_id,
            run_config=run_config,
        )

    async def run_live(self, *args: Any, **kwargs: Any) -> AsyncGenerator[Event, None]:
        """Live (bidirectional audio/video) runs are not supported yet."""
        raise NotImplementedError("run_live is not supported yet; use run_async (with StreamingMode.SSE to stream).")
        yield  # pragma: no cover

    async def close(self) -> None:
        """Closes the plugins and toolsets, and the services this Runner created itself."""
        if self._closed:
            return
        self._closed = True
        errors: list[BaseException] = []
        for toolset in _collect_toolsets(self.agent):
            try:
                await asyncio.wait_for(toolset.close(), timeout=10.0)
            except Exception as e:  # noqa: BLE001
                errors.append(e)
        try:
            await self.plugin_manager.close()
        except Exception as e:  # noqa: BLE001
            errors.append(e)
        for service in self._owned_services:
            close = getattr(service, "close", None)
            if close is not None:
                try:
                    await close()
                except Exception as e:  # noqa: BLE001
                    errors.append(e)
        self._sessions.clear()
        if errors:
            raise errors[0]

    async def __aenter__(self) -> Runner:
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.close()


class InMemoryRunner(Runner):
    """A Runner with in-memory services, for tests and experiments."""

    def __init__(
        self,
        agent: Optional[BaseAgent] = None,
        *,
        app_name: Optional[str] = None,
        plugins: Optional[Sequence[BasePlugin]] = None,
        app: Optional[App] = None,
        node: Any = None,
        plugin_close_timeout: float = 5.0,
    ):
        from runtime.artifacts import InMemoryArtifactService
        from runtime.auth import InMemoryCredentialService
        from runtime.memory import InMemoryMemoryService
        from runtime.sessions import InMemorySessionService

        if app is None and app_name is None:
            app_name = "InMemoryRunner"
        session_service = InMemorySessionService()
        artifact_service = InMemoryArtifactService()
        memory_service = InMemoryMemoryService()
        super().__init__(
            app=app,
            app_name=app_name,
            agent=agent,
            node=node,
            plugins=plugins,
            session_service=session_service,
            artifact_service=artifact_service,
            memory_service=memory_service,
            credential_service=InMemoryCredentialService(),
            plugin_close_timeout=plugin_close_timeout,
        )
        self._owned_services = [session_service, artifact_service, memory_service]


def runner_for(loaded: Any, *, app_name: str, plugins: Sequence[BasePlugin] = (), **services: Any) -> Runner:
    """A Runner of `app_name`'s sessions for what an app module exposes: an App (its plugins, then
    `plugins`), an agent, or a workflow node. `services` are the Runner's keyword arguments
    (session_service, artifact_service, ...)."""
    if isinstance(loaded, App):
        app = loaded.model_copy(update={"plugins": [*loaded.plugins, *plugins]}) if plugins else loaded
        return Runner(app=app, app_name=app_name, **services)
    if isinstance(loaded, BaseAgent):
        return Runner(agent=loaded, app_name=app_name, plugins=list(plugins), **services)
    return Runner(node=loaded, app_name=app_name, plugins=list(plugins), **services)


# -- helpers -----------------------------------------------------------------------------------


def replied_to(session: Session) -> Optional[str]:
    """The invocation a task-mode workflow node waits in for the user's reply (runtime.workflow)."""
    from runtime.workflow.agent_node import waiting_for_user

    return waiting_for_user(session)


def _runs_finished_again(root: BaseAgent) -> bool:
    """Whether a resumable app's finished invocation runs again when resumed: as google-adk 2.13,
    for a root it runs as a node (an LLM agent, a workflow), not for the other agents."""
    from runtime.agents.llm_agent import LlmAgent
    from runtime.workflow.workflow import Workflow

    return isinstance(root, (LlmAgent, Workflow))


def _apply_custom_metadata(event: Event, run_config: Optional[RunConfig]) -> None:
    if run_config is not None and run_config.custom_metadata:
        event.custom_metadata = {**run_config.custom_metadata, **(event.custom_metadata or {})}


def _collect_toolsets(agent: BaseAgent) -> list[Any]:
    from runtime.tools.base_tool import BaseToolset

    found = [t for t in getattr(agent, "tools", []) if isinstance(t, BaseToolset)]
    for sub_agent in agent.sub_agents:
        found.extend(t for t in _collect_toolsets(sub_agent) if t not in found)
    return found
