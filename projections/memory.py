"""The memory index as a fold over the log: pure functions, no I/O.

The index follows *sources*, each a sequence of stored events with positions 1, 2, …:

* a session log of the store (source id: the log id in hex) — each recorded ADK event with
  text becomes one document; a rewind hides the events it rewinds (and rewinding a rewind
  brings them back: `domain.rewind_ranges` holds that rule);
* a user's memory log (`domain.memory_log.MemoryLog`) — it says which sessions were added
  to memory, and holds copies of the text of sessions that live in another store.

`fold_source_event(view, …)` advances a source's view by one stored event and returns the
documents it adds. Backends store the documents and the view (position and rewinds) in the
same transaction, so the index is exactly-once and can be rebuilt from the log.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from domain.rewind_ranges import active_ranges, is_hidden
from domain.session_log import RECORDED_TOPICS, SessionLog
from projections.memory_text import content_text, remembered_content


@dataclass(frozen=True)
class MemoryDoc:
    """One remembered event."""

    source: str
    position: int
    event_id: str
    session_id: str
    invocation_id: str
    author: Optional[str]
    timestamp: float
    content: dict[str, Any]  # {"role": …, "parts": [{"text": …}, …]}
    hidden: bool = False

    @property
    def text(self) -> str:
        return content_text(self.content)


@dataclass
class SourceView:
    """How far the index has folded one source, and the rewinds seen in it."""

    session_id: str
    position: int = 0
    rewinds: list[list[int]] = field(default_factory=list)  # [rewind position, first rewound position]

    def hidden_ranges(self) -> list[tuple[int, int]]:
        return active_ranges(self.rewinds)


@dataclass
class Folded:
    """What folding a batch of events changed."""

    docs: list[MemoryDoc] = field(default_factory=list)
    members: list[tuple[str, str]] = field(default_factory=list)  # (source id, session id) to follow
    rewound: bool = False  # the hidden ranges changed: recompute every document's visibility


def doc_from_event(source: str, session_id: str, position: int, event: dict[str, Any]) -> Optional[MemoryDoc]:
    content = remembered_content(event)
    if content is None:
        return None
    return MemoryDoc(
        source=source,
        position=position,
        event_id=event.get("id") or f"{source}:{position}",
        session_id=session_id,
        invocation_id=event.get("invocation_id") or "",
        author=event.get("author"),
        timestamp=float(event.get("timestamp") or 0.0),
        content=content,
    )


def fold_session_event(
    view: SourceView, source: str, position: int, topic: str, payload: dict[str, Any], folded: Folded
) -> None:
    """Folds one stored event of a session log."""
    view.position = position
    if topic == SessionLog.Rewound.TOPIC:
        view.rewinds.append([position, int(payload["start_version"])])
        folded.rewound = True
    if topic in RECORDED_TOPICS:
        doc = doc_from_event(source, view.session_id, position, payload.get("event") or {})
        if doc is not None:
            folded.docs.append(doc)


def fold_memory_log_event(
    view: SourceView, source: str, position: int, topic: str, payload: dict[str, Any], folded: Folded
) -> None:
    """Folds one stored event of a user's memory log."""
    from domain.memory_log import MemoryLog

    view.position = position
    if topic == MemoryLog.SessionAdded.TOPIC:
        folded.members.append((payload["log_id"], payload["session_id"]))
    elif topic == MemoryLog.Remembered.TOPIC:
        session_id = payload["session_id"]
        copy = external_source(source, session_id)
        for i, event in enumerate(payload["events"]):
            doc = doc_from_event(copy, session_id, int(payload["first_position"]) + i, event)
            if doc is not None:
                folded.docs.append(doc)


def with_visibility(docs: list[MemoryDoc], view: SourceView) -> list[MemoryDoc]:
    """The docs with `hidden` set from the source's rewinds."""
    ranges = view.hidden_ranges()
    if not ranges:
        return docs
    return [
        MemoryDoc(**{**d.__dict__, "hidden": is_hidden(d.position, ranges)}) if is_hidden(d.position, ranges) else d
        for d in docs
    ]


def external_source(memory_log_id: str, session_id: str) -> str:
    """The source id of a session copied into a memory log (it lives in another store)."""
    return f"{memory_log_id}/{session_id}"
