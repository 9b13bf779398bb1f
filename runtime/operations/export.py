"""Exports of a session: its raw stored events (JSONL), a Markdown transcript, ADK's session JSON.

* ``jsonl_lines`` — one stored event per line, exactly as stored (topic, log id, version,
  position and the payload's JSON), for audits, backups and tools of your own;
* ``markdown`` — a transcript a person can read (or paste into a ticket), rewound turns marked;
* ``adk_session`` — the session as google-adk's ``Session`` serialises it (camelCase, as the ADK
  API server returns it), to load into ADK tooling.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Iterator
from uuid import UUID

from pydantic_core import from_json

from runtime.log_reader import LogReader
from runtime.operations.times import utc
from runtime.stores import Store

if TYPE_CHECKING:  # the JSONL and Markdown exports read stored JSON: no event model
    from domain.session import Session

PAGE = 1000


def _line(position: int | None, log_id: Any, version: int, topic: str, state: bytes) -> str:
    record: dict[str, Any] = {"log_id": str(log_id if isinstance(log_id, UUID) else UUID(str(log_id)))}
    if position is not None:
        record["position"] = position
    record.update({"version": version, "topic": topic, "payload": from_json(state)})
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


def jsonl_lines(store: Store, log_id: UUID) -> Iterator[str]:
    """A session log's stored events, in version order."""
    for row in LogReader(store).stored_events(log_id):
        yield _line(None, row.originator_id, row.originator_version, row.topic, row.state)


def store_jsonl_lines(store: Store) -> Iterator[str]:
    """Every stored event of the store (sessions, artifact and memory logs, the purge audit log)
    in log order, with its position."""
    start = 1
    while True:
        page = LogReader(store).notifications(start=start, limit=PAGE)
        for n in page:
            yield _line(n.id, n.originator_id, n.originator_version, n.topic, n.state)
        if len(page) < PAGE:
            return
        start = page[-1].id + 1


def adk_session(session: Session) -> dict[str, Any]:
    """ADK's JSON of a session (camelCase field names, unset fields left out)."""
    return session.model_dump(mode="json", by_alias=True, exclude_none=True)


def markdown(history: Any) -> str:
    """A transcript of a session's ``runtime.operations.history.History``."""
    t, row = history.timeline, history.row
    out = [f"# Session `{row.session_id}`", ""]
    out.append(f"- App `{row.app_name}`, user `{row.user_id}`")
    out.append(f"- Created {utc(t.created)} UTC; {t.events} events in {len(t.invocations)} invocations")
    if t.initial_state:
        out.append(f"- Initial state: `{_json(t.initial_state)}`")
    if history.forked_from:
        f = history.forked_from
        out.append(f"- Forked from session `{f['session_id']}` at version {f['version']}")
    if t.deleted is not None or row.deleted:
        out.append(f"- Deleted {utc(t.deleted)} UTC")
    blocks: list[tuple[int, str, Any]] = [(inv.first_version, "invocation", inv) for inv in t.invocations]
    shown = {s.version for inv in t.invocations for s in inv.steps}
    blocks += [(m.version, "rewind", m) for m in history.rewinds if m.version not in shown]
    for _, kind, block in sorted(blocks, key=lambda b: b[0]):
        out.append("")
        if kind == "rewind":
            out.append(f"## Rewind at version {block.version} ({utc(block.timestamp)} UTC)")
            out.append("")
            out.append(f"Back to before invocation `{block.before_invocation}`: versions "
                       f"{block.start_version}–{block.version - 1} hidden"
                       + (f"; state restored: {', '.join(f'`{k}`' for k in block.restored_keys)}" if block.restored_keys else "")
                       + (" (this rewind was itself rewound)" if block.undone else ""))
            continue
        title = f"Invocation `{block.invocation_id or '(none)'}`, {utc(block.started)} UTC"
        if block.rewound:
            out.append(f"## ~~{title}~~")
            out.append("")
            out.append(f"> **Rewound** by {block.rewound_by}: kept in the log, hidden from the session.")
        else:
            out.append(f"## {title}")
        marks = {m.version: m for m in history.rewinds}
        for step in block.steps:
            out.append("")
            out.extend(_step(step))
            mark = marks.get(step.version)
            if mark is not None:
                out.append("")
                out.append(f"**Rewind** back to before invocation `{mark.before_invocation}`: versions "
                           f"{mark.start_version}–{mark.version - 1} hidden"
                           + (" (this rewind was itself rewound)" if mark.undone else ""))
    return "\n".join(out) + "\n"


def _step(s: Any) -> list[str]:
    lines = []
    who = f"**{s.author}** (v{s.version})"
    if s.text:
        lines.append(f"{who}: {s.text}")
    for call in s.tool_calls:
        lines += [f"{who} calls `{call.name}`:", "", "```json", _json(call.args, indent=2), "```"]
    for result in s.tool_results:
        lines += [f"{who} result of `{result.name}`" + (" (error)" if result.error else "") + ":", "",
                  "```json", _json(result.response, indent=2), "```"]
    if s.error:
        lines.append(f"{who} error: {s.error}")
    if s.transfer_to:
        lines.append(f"{who} transfers to `{s.transfer_to}`")
    if not lines:
        lines.append(f"{who}: (no content)")
    extra = []
    if s.state_changes:
        extra.append("state " + ", ".join(f"`{k}` = `{_json(v)}`" for k, v in s.state_changes.items()))
    if s.artifacts:
        extra.append("artifacts " + ", ".join(f"`{k}` v{v}" for k, v in s.artifacts.items()))
    if s.usage:
        extra.append(f"tokens {s.usage.get('prompt', 0)} + {s.usage.get('candidates', 0)}")
    if extra:
        lines += ["", "<sub>" + "; ".join(extra) + "</sub>"]
    return lines


def _json(value: Any, indent: int | None = None) -> str:
    return json.dumps(value, ensure_ascii=False, indent=indent, default=str)
