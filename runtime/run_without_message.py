"""What `Runner.run_async` does when it gets no `new_message`, as google-adk 2.13 does.

* Resuming: in a resumable app, an `invocation_id` the session holds resumes that invocation
  from its events (runtime.resume); a finished one yields nothing.
* Continuing: with an LlmAgent at the root, the agent runs again on the conversation so far,
  with no user event (a `state_delta` is stored as a user event without content), under the
  given `invocation_id` or a new one -- google-adk 2.13 runs a root LlmAgent this way.
* Anything else is refused with google-adk's ValueError, before anything is written; so is an
  invocation that was rewound (InvocationNotFoundError, a ValueError too).

Where google-adk 2.13 runs a root LlmAgent again under the id of an invocation that has
finished, Chronicle yields nothing: a finished invocation stays finished.
"""

from __future__ import annotations

from typing import Any, Optional

from domain.errors import InvalidArgumentError, InvocationNotFoundError
from domain.session import Session
from runtime.resume import invocation_start


def continues_conversation(
    root: Any, session: Session, *, invocation_id: Optional[str], resumable: bool, user_id: str
) -> bool:
    """True when a run without a message continues the conversation; False when it resumes the
    invocation `invocation_id`. Raises (ValueError) when it can do neither."""
    from runtime.agents.llm_agent import LlmAgent

    known = invocation_id is not None and invocation_start(session.live_events(), invocation_id) is not None
    if invocation_id is not None and not known and invocation_start(session.events, invocation_id) is not None:
        raise InvocationNotFoundError(session.id, invocation_id)  # rewound: it cannot go on
    if resumable and known:
        return False
    if isinstance(root, LlmAgent):
        return True
    where = f"Session: {session.id}, User: {user_id}"
    if invocation_id is None:
        raise InvalidArgumentError(
            "Running an agent requires either a new_message or an invocation_id to resume a previous "
            f"invocation. {where}"
        )
    if not resumable:
        raise InvalidArgumentError(
            "Running an agent requires a new_message or a resumable app "
            f"(App(..., resumability_config=ResumabilityConfig(is_resumable=True))). {where}"
        )
    raise InvocationNotFoundError(session.id, invocation_id)
