"""What the viewer's sessions page shows of a session, and what it searches: a pure fold, one view
per session, bounded in size whatever the session's length.

The summary (a JSON dict) holds the session's ids, its times (``updated`` is its catalog's last
update time: the last event's, the fork's or the deletion's), its version, counts of events,
invocations and rewinds, whether it is deleted or forked from another, its first text and its
pending log (``projections.pending``: the open requests, safe across rewinds). A second fold keeps
what the search looks through (the session id and the first ``SEARCH_CHARS`` characters of its
messages, tool calls and results), stored with their lower-case text and the page's order
(newest update first) so that the store itself searches them a page at a time.

Invocations are counted as the timeline counts them (``projections.timeline``), remembering the
last ``RECENT_INVOCATIONS`` ids so that a resumed invocation is not counted twice, without keeping
every id of a long session.
"""

from __future__ import annotations

import json
from typing import Any

from projections.base import Fold, Projection, by_session
from projections.log_event import CREATED, DELETED, FORKED, RECORDED, REWOUND, LogEvent
from projections.pending import fold_pending_log, new_pending_log

SEARCH_CHARS = 4000
TEXT_CHARS = 500  # one searchable text, cut
FIRST_TEXT_CHARS = 160
RECENT_INVOCATIONS = 16
# The kinds whose time is the session's last update time (as its catalog row has it).
UPDATING = frozenset({CREATED, RECORDED, REWOUND, FORKED, DELETED})


def new_summary() -> dict[str, Any]:
    return {
        "app_name": "", "user_id": "", "session_id": "", "created": 0.0, "updated": 0.0, "version": 0,
        "events": 0, "invocations": 0, "recent": [], "rewinds": 0, "deleted": False, "forked_from": None,
        "first_text": "", "pending": new_pending_log(),
    }


def new_texts() -> dict[str, Any]:
    return {"session_id": "", "updated": 0.0, "texts": [], "searched": 0}


def fold_summary(view: dict[str, Any], event: LogEvent) -> dict[str, Any]:
    kind = event.kind
    view["version"] = event.version
    if kind in UPDATING:
        view["updated"] = event.timestamp
    if kind == CREATED:
        view["app_name"], view["user_id"], view["session_id"] = event.app_name, event.user_id, event.session_id
        view["created"] = event.timestamp
    elif kind in (RECORDED, REWOUND):
        view["events"] += 1
        _count_invocation(view, event.invocation_id)
        if kind == REWOUND:
            view["rewinds"] += 1
        if not view["first_text"]:
            view["first_text"] = event.text()[:FIRST_TEXT_CHARS]
    elif kind == FORKED:
        view["forked_from"] = dict(event.meta)
    elif kind == DELETED:
        view["deleted"] = True
    fold_pending_log(view["pending"], event)
    return view


def _count_invocation(view: dict[str, Any], invocation_id: str) -> None:
    recent = view["recent"]
    if recent and recent[-1] == invocation_id:
        return
    if invocation_id and invocation_id in recent:
        recent.remove(invocation_id)
    else:
        view["invocations"] += 1
    recent.append(invocation_id)
    del recent[:-RECENT_INVOCATIONS]


def fold_texts(view: dict[str, Any], event: LogEvent) -> dict[str, Any]:
    """The texts a search looks through (the first ``SEARCH_CHARS`` characters of the session's),
    and what orders them as the sessions page does (the session's last update)."""
    if event.kind in UPDATING:
        view["updated"] = event.timestamp
    if event.kind == CREATED:
        view["session_id"] = event.session_id
    if event.kind not in (RECORDED, REWOUND) or view["searched"] >= SEARCH_CHARS:
        return view
    text = event.text()
    texts = [text, *(f"{c.get('name', '?')}({json.dumps(dict(c.get('args') or {}), default=str)})"
                     for c in event.function_calls()),
             *(json.dumps(r.get("response"), default=str) for r in event.function_responses())]
    for text in texts:
        if text and view["searched"] < SEARCH_CHARS:
            text = text[:min(TEXT_CHARS, SEARCH_CHARS - view["searched"])]
            view["texts"].append(text)
            view["searched"] += len(text)
    return view


def searched_text(view: dict[str, Any]) -> str:
    """What a search looks through, lower case (a search lowers its text too): the session id
    and the texts, a line each."""
    return "\n".join((view["session_id"], *view["texts"])).lower()


def search_order(view: dict[str, Any]) -> float:
    """Where the session comes in a search's answer, lowest first: newest update first, as the
    sessions page lists them (ties by key, as the store orders them)."""
    return -view["updated"]


# Two folds, so that a reader of the summaries (the sessions page, pending) does not decode the
# texts; the texts are searched where they are stored. The projection's name changes with what
# its rows hold (``_2``: the searched texts; ``_3``: the id in them, and their order), so that a
# store folded before is folded again.
SUMMARIES, TEXTS = "session_summaries", "session_texts"
SESSION_SUMMARIES = Projection("session_summaries_3", folds=[
    Fold(SUMMARIES, fold_summary, by_session, new_summary),
    Fold(TEXTS, fold_texts, by_session, new_texts, search=searched_text, search_order=search_order),
])
