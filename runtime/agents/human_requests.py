"""Requests to a person: turning what a tool asked for into the calls the client answers
(`adk_request_confirmation`, `adk_request_credential`), and finding, in a resumed or follow-up
turn, the original calls those answers let run again. Pure over events and the agent's tools:
whether a call may run after a pause is read from the log, never from memory."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional, Sequence

from google.genai import types
from pydantic import ValidationError

from domain.errors import InvalidAnswerError
from domain.events import Event
from projections.pending import REQUEST_CONFIRMATION, REQUEST_CREDENTIAL, REQUEST_INPUT, open_requests
from runtime.auth.auth_handler import redacted
from runtime.auth.auth_tool import AuthConfig, AuthToolArguments
from runtime.tools.tool_confirmation import ToolConfirmation

if TYPE_CHECKING:
    from runtime.invocation_context import InvocationContext


def _new_id() -> str:
    from runtime.agents.tool_calls import new_function_call_id

    return new_function_call_id()


def request_event(ctx: InvocationContext, author: str, call_event: Event, results: Event) -> Optional[Event]:
    """The event that asks the client for what the calls of `results` requested (one call per
    request, each id in long_running_tool_ids), or None when nothing was requested. Secrets a
    tool put in an AuthConfig are redacted: the log never holds them."""
    actions = results.actions
    calls = {c.id: c for c in call_event.get_function_calls()}
    parts: list[types.Part] = []
    for call_id, auth_config in actions.requested_auth_configs.items():
        config = auth_config if isinstance(auth_config, AuthConfig) else AuthConfig.model_validate(auth_config)
        args = AuthToolArguments(function_call_id=call_id, auth_config=config)
        dumped = redacted(args.model_dump(mode="json", by_alias=True, exclude_none=True))
        parts.append(types.Part(function_call=types.FunctionCall(id=_new_id(), name=REQUEST_CREDENTIAL, args=dumped)))
    for call_id, confirmation in actions.requested_tool_confirmations.items():
        original = calls.get(call_id)
        if original is None:
            continue
        if not isinstance(confirmation, ToolConfirmation):
            confirmation = ToolConfirmation.model_validate(confirmation)
        args = {
            "originalFunctionCall": original.model_dump(exclude_none=True, by_alias=True, mode="json"),
            "toolConfirmation": confirmation.model_dump(by_alias=True, exclude_none=True, mode="json"),
        }
        parts.append(types.Part(function_call=types.FunctionCall(id=_new_id(), name=REQUEST_CONFIRMATION, args=args)))
    if not parts:
        return None
    return Event(
        invocation_id=ctx.invocation_id,
        author=author,
        branch=ctx.branch,
        content=types.Content(role="model", parts=parts),
        long_running_tool_ids={p.function_call.id for p in parts},
    )


def redact_requested_auth(results: Event) -> None:
    """The function-response event keeps which credentials were asked for, without secrets."""
    configs = results.actions.requested_auth_configs
    for call_id, config in list(configs.items()):
        if isinstance(config, AuthConfig):
            config = config.model_dump(mode="json", by_alias=True, exclude_none=True)
        configs[call_id] = redacted(config)


@dataclass
class AnsweredCall:
    """An original call that the user's answer lets run again."""

    call: types.FunctionCall
    confirmation: Optional[ToolConfirmation] = None
    auth_config: Optional[AuthConfig] = None


def answered_calls(events: Sequence[Event], agent_name: str) -> list[AnsweredCall]:
    """The original calls of `agent_name` that the last user event answered a confirmation or
    credential request for, and that have not run since (a resume after a crash does not run
    a finished call again)."""
    last_user = next((i for i in range(len(events) - 1, -1, -1) if events[i].author == "user"), None)
    if last_user is None:
        return []
    if not events[last_user].get_function_responses():
        return _replied_task(events, last_user, agent_name)
    answers = {
        r.id: r
        for r in events[last_user].get_function_responses()
        if r.id and r.name in (REQUEST_CONFIRMATION, REQUEST_CREDENTIAL, REQUEST_INPUT)
    }
    if not answers:
        return []
    first_answer = next(
        i for i, e in enumerate(events) if e.author == "user" and any(r.id in answers for r in e.get_function_responses())
    )
    calls: dict[str, types.FunctionCall] = {}
    own_calls: set[str] = set()  # the ids of agent_name's calls
    requests: dict[str, tuple[str, dict[str, Any], str]] = {}  # request id -> (kind, args, author)
    for event in events:
        for call in event.get_function_calls():
            if call.name in (REQUEST_CONFIRMATION, REQUEST_CREDENTIAL):
                requests[call.id] = (call.name, dict(call.args or {}), event.author)
            elif call.name == REQUEST_INPUT:  # a node's, run as a tool: the call is on its branch
                original = _node_tool_call(event.branch, calls, own_calls)
                requests[call.id] = (call.name, {"functionCallId": original}, agent_name if original else event.author)
            elif call.id:
                calls[call.id] = call
                if event.author == agent_name:
                    own_calls.add(call.id)
    ran_since = {
        r.id for e in events[first_answer + 1 :] if e.author != "user" for r in e.get_function_responses() if r.id
    }
    out: list[AnsweredCall] = []
    for request_id, response in answers.items():
        kind, args, author = requests.get(request_id, ("", {}, ""))
        if author != agent_name:
            continue
        if kind == REQUEST_CONFIRMATION:
            original_id = (args.get("originalFunctionCall") or {}).get("id")
            confirmation = ToolConfirmation.from_response_dict(response.response or {})
            answered = AnsweredCall(calls[original_id], confirmation=confirmation) if original_id in calls else None
        elif kind == REQUEST_INPUT:  # the node's call runs again, and the node resumes with the answer
            original_id = args.get("functionCallId")
            answered = AnsweredCall(calls[original_id]) if original_id in calls else None
        else:
            original_id = args.get("functionCallId")
            config = AuthConfig.model_validate((args.get("authConfig") or {}))
            answered = AnsweredCall(calls[original_id], auth_config=config) if original_id in calls else None
        if answered is not None and original_id not in ran_since:
            out.append(answered)
    return out


def _replied_task(events: Sequence[Event], last_user: int, agent_name: str) -> list[AnsweredCall]:
    """The call of `agent_name` whose delegated task (runtime.agents.task_mode.TaskAgentTool) waits
    for the user's reply at `last_user`: it runs again, the task going on with the reply."""
    from projections.workflow import node_fact
    from runtime.resume import is_state_marker
    from runtime.workflow.agent_node import USER_TURN

    at = last_user - 1
    while at >= 0 and is_state_marker(events[at]):
        at -= 1
    fact = node_fact(events[at]) if at >= 0 else None
    if fact is None or fact.get("status") != "waiting" or USER_TURN not in fact.get("interrupts", ()):
        return []
    calls = {c.id: c for e in events[:at] if e.author == agent_name for c in e.get_function_calls() if c.id}
    original = _node_tool_call(events[at].branch, calls, set(calls))
    return [AnsweredCall(calls[original])] if original else []


def _node_tool_call(branch: Optional[str], calls: dict[str, types.FunctionCall], own: set[str]) -> Optional[str]:
    """The id of the agent's call whose node made an event on `branch`: a node run as a tool
    runs on the branch segment `<tool>@<call id>` (runtime.workflow.node_tool)."""
    for segment in (branch or "").split("."):
        name, _, call_id = segment.partition("@")
        if call_id in own and calls[call_id].name == name:
            return call_id
    return None


REQUEST_NAMES = (REQUEST_CONFIRMATION, REQUEST_CREDENTIAL, REQUEST_INPUT)


async def accept_answers(ctx: InvocationContext, message: types.Content) -> types.Content:
    """Checks the answers `message` gives to requests (before anything is written) and returns
    the message to store: a credential goes to the credential service, and the stored answer
    holds only a reference to it. Raises InvalidAnswerError for an answer to no open request
    (unknown, or answered already) or of the wrong shape."""
    from runtime.auth.auth_handler import credential_reference
    from runtime.contexts import Context, ServiceNotConfiguredError

    answers = [p.function_response for p in message.parts or [] if p.function_response is not None]
    if not answers:
        return message
    events = ctx.session.live_events()
    known = {c.id for e in events for c in e.get_function_calls() if c.name in REQUEST_NAMES}
    answers = [a for a in answers if a.name in REQUEST_NAMES or a.id in known]
    if not answers:
        return message
    open_ = open_requests(events)
    credentials: dict[str, AuthConfig] = {}
    seen: set[str] = set()
    for answer in answers:
        request = open_.get(answer.id or "")
        if request is None or answer.id in seen:
            state = "was answered already (or cancelled)" if answer.id in known else "was never made"
            raise InvalidAnswerError(
                f"The answer names no open request: request {answer.id!r} {state}. "
                "See the open ones with `chronicle pending`."
            )
        seen.add(answer.id)
        if answer.name != request.name:
            raise InvalidAnswerError(f"Request {answer.id!r} is an {request.name} call; the answer names {answer.name!r}.")
        if request.kind == "confirmation":
            ToolConfirmation.from_response_dict(answer.response or {})
        elif request.kind == "credential":
            credentials[answer.id] = _supplied_auth_config(answer.response or {}, request.args)
    if not credentials:
        return message
    service = ctx.credential_service
    if service is None:
        raise ServiceNotConfiguredError(
            "A credential answer needs a credential service (the secret must not enter the log): pass "
            "credential_service=... to the Runner (InMemoryCredentialService, credential_service_from_url(url))."
        )
    stored = message.model_copy(deep=True)
    for part in stored.parts:
        response = part.function_response
        if response is not None and response.id in credentials:
            config = credentials[response.id]
            await _complete_pending_sign_in(service, config, Context(ctx))
            await service.save_credential(config, Context(ctx))
            response.response = credential_reference(config)
    return stored


async def _complete_pending_sign_in(service: Any, config: AuthConfig, context: Any) -> None:
    """An OAuth2 answer to a PKCE sign-in gets the code verifier the service kept for it when the
    request was made (the log never held it), if the answer's state is that sign-in's."""
    answer = config.exchanged_auth_credential.oauth2
    if answer is None or answer.code_verifier:
        return
    pending = await service.load_credential(config, context)
    kept = pending.oauth2 if pending is not None else None
    if kept is not None and kept.code_verifier and not kept.access_token and kept.state == answer.state:
        answer.code_verifier, answer.code_challenge_method = kept.code_verifier, kept.code_challenge_method


def _from_credential(response: dict[str, Any], request_args: dict[str, Any]) -> Optional[AuthConfig]:
    """The requested AuthConfig holding the credential an answer gives as an AuthCredential, or as
    a bare API key (`{"result": "key"}`) when the request is for one; None for anything else."""
    from runtime.auth.auth_credential import AuthCredential, AuthCredentialTypes

    try:
        requested = AuthConfig.model_validate(request_args.get("authConfig") or {})
    except ValidationError:
        return None
    value = response.get("result") if set(response) == {"result"} else response
    raw = requested.raw_auth_credential
    if raw is not None and raw.auth_type == AuthCredentialTypes.API_KEY and isinstance(value, (str, int, float)) \
            and not isinstance(value, bool):
        credential = AuthCredential(auth_type=AuthCredentialTypes.API_KEY, api_key=str(value))
    else:
        try:
            credential = AuthCredential.model_validate(value)
        except ValidationError:
            return None
    return requested.model_copy(update={"exchanged_auth_credential": credential})


def _supplied_auth_config(response: dict[str, Any], request_args: dict[str, Any]) -> AuthConfig:
    try:
        config = AuthConfig.model_validate(response)
    except ValidationError as error:
        config = _from_credential(response, request_args)  # as google-adk 2.13 also takes a node's answer
        if config is None:
            raise InvalidAnswerError(
                "The answer to adk_request_credential is not an AuthConfig: " + str(error).splitlines()[0]
            ) from None
    if config.exchanged_auth_credential is None:
        raise InvalidAnswerError("The answer to adk_request_credential has no exchangedAuthCredential.")
    asked = (request_args.get("authConfig") or {}).get("credentialKey")
    if asked and config.credential_key != asked:
        config.credential_key = asked  # kept under the key the tool asked with
    return config
