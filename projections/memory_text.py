"""What of an event is remembered, and how text becomes search terms.

Only the text parts of an event's content are remembered and searched (as in ADK);
thoughts, tool calls and bytes are not.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any, Optional

_WORD = re.compile(r"[^\W_]+", re.UNICODE)

STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being below
    between both but by can could did do does doing down during each few for from further had has have
    having he her here hers herself him himself his how i if in into is it its itself just me more most my
    myself no nor not now of off on once only or other our ours ourselves out over own same she should so
    some such than that the their theirs them themselves then there these they this those through to too
    under until up very was we were what when where which while who whom why will with would you your yours
    yourself yourselves""".split()
)


def words(text: str) -> list[str]:
    """The lower-cased words of `text` that are worth searching for (stop words dropped)."""
    return [
        w for w in (m.lower() for m in _WORD.findall(text)) if w not in STOPWORDS and (len(w) > 1 or w.isdigit())
    ]


def stem(word: str) -> str:
    """A light English stemmer (plurals and a few suffixes): 'colours' and 'colour' match."""
    if len(word) <= 3 or not word.isalpha():
        return word
    for suffix, replacement in (("ies", "y"), ("sses", "ss"), ("ches", "ch"), ("shes", "sh"), ("xes", "x")):
        if word.endswith(suffix):
            return word[: -len(suffix)] + replacement
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def terms(text: str) -> list[str]:
    """The index terms of `text` for the in-memory index."""
    return [stem(w) for w in words(text)]


def remembered_content(event: dict[str, Any]) -> Optional[dict[str, Any]]:
    """The event's content reduced to its text parts (JSON), or None when it has no text."""
    content = event.get("content") or {}
    parts = [
        {"text": p["text"]}
        for p in content.get("parts") or ()
        if isinstance(p, dict) and p.get("text") and not p.get("thought")
    ]
    if not parts:
        return None
    return {"role": content.get("role"), "parts": parts}


def content_text(content: dict[str, Any]) -> str:
    return "\n".join(p["text"] for p in content["parts"])


def iso_timestamp(timestamp: float) -> str:
    """A memory's time as google-adk writes it (local time, no offset): preload_memory puts it in
    the model's request, which must be the one ADK sends."""
    return datetime.fromtimestamp(timestamp).isoformat()
