"""What an `on_event_callback` replacement becomes (ADK 2.13's `Runner._get_output_event`).

A plugin may return a whole new Event to stand for the one the agent yielded. As in ADK, the
replacement overrides only the fields it sets; the original keeps its identity (id, invocation id,
timestamp), and its author unless the replacement names one, so the stored event still says
which agent and invocation it belongs to."""

from __future__ import annotations

from domain.events import Event

_IDENTITY = frozenset({"id", "invocation_id", "timestamp"})


def merge_replacement(original: Event, replacement: Event) -> Event:
    if replacement is original:
        return original
    update = {name: getattr(replacement, name) for name in replacement.model_fields_set - _IDENTITY}
    merged = original.model_copy(update=update)
    if not merged.author:
        merged.author = original.author
    return merged
