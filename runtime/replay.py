"""Replaying a conversation through the current agent, in a fork, and reporting what changed.

`await runner.replay(user_id=..., session_id=...)` forks the session just before its first
replayed turn (the source is never touched; the fork keeps the initial state and, with
`from_invocation_id`, the history before that turn), copies the session's files into the fork,
then sends each recorded user message -- with the state delta it carried -- through the Runner's
agent, one invocation per recorded invocation. Results the user sent for long-running tool calls
are sent again, matched to the new calls by tool name. The report says, turn by turn, whether the
agent's answer (its final text) and the tools it called (names and arguments) differ from what was
recorded.

To compare another model or prompt, build a Runner with that agent on the same session service
and replay through it.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Optional

from google.genai import types

from domain.errors import InvalidArgumentError, SessionNotFoundError
from domain.events import Event
from domain.session_log import fold_artifact_view
from runtime.sessions.base import GetSessionConfig

if TYPE_CHECKING:
    from runtime.runner import Runner


@dataclass
class ReplayTurn:
    """One recorded turn and its replay."""

    index: int
    source_invocation_id: str
    invocation_id: Optional[str]  # the replay's invocation (None if it could not run)
    user_message: str
    recorded_answer: str
    replayed_answer: str
    recorded_calls: list[str] = field(default_factory=list)
    replayed_calls: list[str] = field(default_factory=list)
    error: Optional[str] = None

    @property
    def answer_differs(self) -> bool:
        return self.recorded_answer != self.replayed_answer

    @property
    def calls_differ(self) -> bool:
        return self.recorded_calls != self.replayed_calls

    @property
    def differs(self) -> bool:
        return self.error is not None or self.answer_differs or self.calls_differ

    def diff(self) -> str:
        """A unified diff of the recorded and replayed answers and calls ('' when the same)."""
        if not self.differs:
            return ""
        recorded = [*(f"call {c}" for c in self.recorded_calls), *self.recorded_answer.splitlines()]
        replayed = [*(f"call {c}" for c in self.replayed_calls), *self.replayed_answer.splitlines()]
        lines = list(difflib.unified_diff(recorded, replayed, "recorded", "replayed", lineterm="", n=1))
        if self.error:
            lines.append(f"error: {self.error}")
        return "\n".join(lines)


@dataclass
class ReplayReport:
    source_session_id: str
    session_id: str  # the fork the replay ran in
    forked_before: Optional[str]  # the source invocation the fork was cut before
    turns: list[ReplayTurn]

    @property
    def differences(self) -> list[ReplayTurn]:
        return [t for t in self.turns if t.differs]

    @property
    def identical(self) -> bool:
        return not self.differences

    def to_json(self) -> dict[str, Any]:
        """The report as plain JSON (`chronicle replay --agent --json`, the server's replay route)."""
        return {
            "source_session_id": self.source_session_id, "session_id": self.session_id,
            "forked_before": self.forked_before, "identical": self.identical,
            "turns": [{**asdict(t), "differs": t.differs, "diff": t.diff()} for t in self.turns],
        }

    def format(self) -> str:
        lines = [
            f"replay of session {self.source_session_id} in {self.session_id}: "
            f"{len(self.turns)} turn{'' if len(self.turns) == 1 else 's'}, {len(self.differences)} differ"
        ]
        for turn in self.turns:
            status = "differs" if turn.differs else "same"
            lines.append(f"#{turn.index} {status}: user: {_short(turn.user_message)}")
            if turn.differs:
                lines.extend("    " + line for line in turn.diff().splitlines())
        return "\n".join(lines)


@dataclass
class _Turn:
    invocation_id: str
    message: types.Content
    state_delta: dict[str, Any]
    events: list[Event]
    answers: list[types.Content]  # results the user sent later in the same invocation


def recorded_turns(events: list[Event]) -> list[_Turn]:
    """The invocations that began with a user message, in order, with what they recorded."""
    by_invocation: dict[str, list[Event]] = {}
    order: list[str] = []
    for event in events:
        if not event.invocation_id or event.actions.rewind_before_invocation_id or event.actions.compaction:
            continue
        if event.invocation_id not in by_invocation:
            by_invocation[event.invocation_id] = []
            order.append(event.invocation_id)
        by_invocation[event.invocation_id].append(event)
    turns = []
    for invocation_id in order:
        group = by_invocation[invocation_id]
        first = group[0]
        if first.author != "user" or not first.content or not first.content.parts:
            continue
        answers = [
            e.content for e in group[1:] if e.author == "user" and e.content and e.get_function_responses()
        ]
        turns.append(_Turn(invocation_id, first.content, dict(first.actions.state_delta), group, answers))
    return turns


def answer_text(events: list[Event]) -> str:
    """The agents' final answers in these events, joined by newlines."""
    return "\n".join(
        e.text() for e in events if e.author != "user" and not e.partial and e.text() and e.is_final_response()
    )


def tool_calls(events: list[Event]) -> list[str]:
    return [
        f"{c.name}({json.dumps(c.args or {}, sort_keys=True, default=str)})"
        for e in events
        if e.author != "user"
        for c in e.get_function_calls()
    ]


def message_text(message: types.Content) -> str:
    parts = []
    for part in message.parts or []:
        if part.text:
            parts.append(part.text)
        elif part.function_response:
            parts.append(f"[result of {part.function_response.name}]")
        elif part.inline_data or part.file_data:
            parts.append("[file]")
    return " ".join(parts)


def _short(text: str, width: int = 70) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _pending_calls(events: list[Event]) -> list[types.FunctionCall]:
    answered = {r.id for e in events for r in e.get_function_responses() if r.id}
    return [
        c
        for e in events
        if e.long_running_tool_ids
        for c in e.get_function_calls()
        if c.id in e.long_running_tool_ids and c.id not in answered
    ]


def _rebind(message: types.Content, events: list[Event]) -> Optional[types.Content]:
    """A recorded function-response message with its ids changed to the replay's pending calls of
    the same tools (None when a call it answers was not made this time)."""
    pending = _pending_calls(events)
    parts = []
    for part in message.parts or []:
        response = part.function_response
        if response is None:
            parts.append(part)
            continue
        match = next((c for c in pending if c.name == response.name), None)
        if match is None:
            return None
        pending.remove(match)
        parts.append(types.Part(function_response=response.model_copy(update={"id": match.id})))
    return types.Content(role=message.role or "user", parts=parts)


async def replay_session(
    runner: Runner,
    *,
    user_id: str,
    session_id: str,
    new_session_id: Optional[str] = None,
    from_invocation_id: Optional[str] = None,
    run_config: Any = None,
) -> ReplayReport:
    service = runner.session_service
    fork = getattr(service, "fork_session", None)
    if fork is None:
        raise InvalidArgumentError(
            f"{type(service).__name__} cannot fork sessions; replay needs one of Chronicle's session services."
        )
    source = await service.get_session(
        app_name=runner.app_name, user_id=user_id, session_id=session_id, config=GetSessionConfig()
    )
    if source is None:
        raise SessionNotFoundError(runner.app_name, user_id, session_id)
    turns = recorded_turns(source.live_events())
    if from_invocation_id is not None:
        starts = [i for i, t in enumerate(turns) if t.invocation_id == from_invocation_id]
        if not starts:
            raise InvalidArgumentError(
                f"Session {session_id!r} has no turn that starts invocation {from_invocation_id!r} with a user message."
            )
        turns = turns[starts[0] :]
    cut = turns[0].invocation_id if turns else None
    forked = await fork(
        app_name=runner.app_name, user_id=user_id, session_id=session_id, at_invocation_id=cut, new_session_id=new_session_id
    )
    await _copy_files(runner, user_id, session_id, forked.id)

    report = ReplayReport(source_session_id=session_id, session_id=forked.id, forked_before=cut, turns=[])
    for index, turn in enumerate(turns, 1):
        result = ReplayTurn(
            index=index,
            source_invocation_id=turn.invocation_id,
            invocation_id=None,
            user_message=message_text(turn.message),
            recorded_answer=answer_text(turn.events),
            replayed_answer="",
            recorded_calls=tool_calls(turn.events),
        )
        report.turns.append(result)
        replayed: list[Event] = []
        try:
            message = turn.message
            if any(p.function_response for p in message.parts or []):
                current = await service.get_session(app_name=runner.app_name, user_id=user_id, session_id=forked.id)
                message = _rebind(message, current.live_events())
                if message is None:
                    result.error = "the replay made no matching long-running call to answer"
                    continue
            replayed += await _run(runner, user_id, forked.id, message, turn.state_delta or None, None, run_config)
            invocation_id = replayed[0].invocation_id if replayed else None
            result.invocation_id = invocation_id
            for answer in turn.answers:  # results sent to a paused invocation of a resumable app
                current = await service.get_session(app_name=runner.app_name, user_id=user_id, session_id=forked.id)
                rebound = _rebind(answer, current.live_events())
                if rebound is None:
                    result.error = "the replay made no matching long-running call to answer"
                    break
                replayed += await _run(runner, user_id, forked.id, rebound, None, invocation_id, run_config)
        except Exception as error:  # noqa: BLE001 - reported per turn; the replay goes on
            result.error = f"{type(error).__name__}: {error}"
        finally:
            result.replayed_answer = answer_text(replayed)
            result.replayed_calls = tool_calls(replayed)
    return report


async def _run(
    runner: Runner,
    user_id: str,
    session_id: str,
    message: types.Content,
    state_delta: Optional[dict[str, Any]],
    invocation_id: Optional[str],
    run_config: Any,
) -> list[Event]:
    events = []
    async for event in runner.run_async(
        user_id=user_id,
        session_id=session_id,
        new_message=message.model_copy(deep=True),
        state_delta=state_delta,
        invocation_id=invocation_id,
        run_config=run_config,
        yield_user_message=True,
    ):
        events.append(event)
    return events


async def _copy_files(runner: Runner, user_id: str, source_id: str, fork_id: str) -> None:
    """Copies the session files the fork's history refers to (each version up to the one in
    view, so numbers match where no version was deleted). ``user:`` files are shared already."""
    artifacts = runner.artifact_service
    if artifacts is None:
        return
    forked = await runner.session_service.get_session(app_name=runner.app_name, user_id=user_id, session_id=fork_id)
    view: dict[str, int] = {}
    for event in forked.events:
        fold_artifact_view(view, event.actions.artifact_delta)
    scope = dict(app_name=runner.app_name, user_id=user_id)
    for filename, wanted in sorted(view.items()):
        for version in await artifacts.list_versions(filename=filename, session_id=source_id, **scope):
            if version > wanted:
                break
            part = await artifacts.load_artifact(filename=filename, session_id=source_id, version=version, **scope)
            if part is not None:
                await artifacts.save_artifact(filename=filename, artifact=part, session_id=fork_id, **scope)
