"""Eval sets from the log: each recorded conversation becomes a case, each turn its user content, the tool
calls made (with their arguments) and the final response, exactly as recorded.

A case carries `chronicle_source`: the session, the log version and chain head it was taken at, and per turn
the invocation id and the ids of its events, so a case can be proven to be what happened
(`chronicle prove SESSION EVENT_ID`). google-adk keeps unknown keys of a case, so it loads these files too."""

from __future__ import annotations

import json
import time
from typing import Any, Iterable, Sequence

from domain.errors import InvalidArgumentError
from domain.session_log import SessionLog
from runtime.sessions.service import decode_events
from runtime.log_reader import LogReader
from runtime.stores import CatalogRow, Store

from .eval_case import EvalCase, Invocation, SessionInput
from .eval_set import EvalSet
from .evaluation_generator import convert_events_to_eval_invocations
from .where import Condition

SOURCE_KEY = "chronicle_source"


def recorded_turns(store: Store, row: CatalogRow) -> tuple[SessionLog, list, list, list[Invocation]]:
    """The session's log, stored rows, live events (a rewound turn is not one), and the turns a user started
    (a turn resumed without a message has nothing to replay)."""
    log: SessionLog = store.application.repository.get(row.log_id)
    rows = LogReader(store).rows(row.log_id)
    events = decode_events(rows, log.hidden_ranges())
    return log, rows, events, [t for t in convert_events_to_eval_invocations(events) if t.user_content.parts]


def eval_case_from_session(store: Store, row: CatalogRow, eval_id: str) -> EvalCase:
    log, rows, events, turns = recorded_turns(store, row)
    if not turns:
        raise InvalidArgumentError(f"Session {row.session_id!r} has no turn started by a user message to take.")
    ids: dict[str, list[str]] = {}
    for event in events:
        ids.setdefault(event.invocation_id, []).append(event.id)
    genesis = rows[0]
    initial = json.loads(genesis[2]).get("state", {}) if genesis[1] == SessionLog.Created.TOPIC else {}
    source = {"app_name": row.app_name, "user_id": row.user_id, "session_id": row.session_id,
              "version": log.version, "chain_head": log.chain_head,
              "turns": [{"invocation_id": t.invocation_id, "event_ids": ids[t.invocation_id]} for t in turns]}
    return EvalCase(eval_id=eval_id, conversation=turns, creation_timestamp=time.time(),
                    session_input=SessionInput(app_name=row.app_name, user_id=row.user_id, state=initial),
                    **{SOURCE_KEY: source})


def eval_set_from_sessions(store: Store, rows: Iterable[CatalogRow], eval_set_id: str,
                           where: Sequence[Condition] = ()) -> EvalSet:
    """One case per session (its id; `USER/SESSION` where two users share a session id), of the sessions
    that meet every `where` condition (see where.py)."""
    rows = [r for r in rows if not r.deleted]
    if not rows:
        raise InvalidArgumentError("No sessions to take cases from.")
    shared = {r.session_id for r in rows if sum(s.session_id == r.session_id for s in rows) > 1}
    cases = [case for r in rows for case in [eval_case_from_session(
        store, r, f"{r.user_id}/{r.session_id}" if r.session_id in shared else r.session_id)]
        if all(meets(r, case.conversation) for meets in where)]
    if not cases:
        raise InvalidArgumentError(f"None of the {len(rows)} session(s) meets the --where conditions.")
    return EvalSet(eval_set_id=eval_set_id, name=eval_set_id, eval_cases=cases, creation_timestamp=time.time())


def source_of(case: EvalCase) -> dict[str, Any] | None:
    return (case.model_extra or {}).get(SOURCE_KEY)
