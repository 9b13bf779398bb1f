"""Shared by the projection, time-travel and analytics tests (no tests here): events, comparisons."""

from __future__ import annotations

import json
from typing import Any

from google.genai import types

from domain import Event, EventActions
from projections.base import Projection, encoded, fold_events
from runtime.read_models import LogSource, ProjectionFollower


def event(
    author: str = "user",
    invocation: str = "inv-1",
    *,
    text: str | None = None,
    delta: dict[str, Any] | None = None,
    artifacts: dict[str, int] | None = None,
    call: tuple[str, str, dict[str, Any]] | None = None,
    result: tuple[str, str, Any] | None = None,
    usage: tuple[int, int] | None = None,
    error: str | None = None,
    timestamp: float | None = None,
) -> Event:
    """An ADK event: a message, a model tool call (id, name, args), a tool result (id, name, response)."""
    parts: list[types.Part] = []
    role = "user" if author == "user" else "model"
    if text is not None:
        parts.append(types.Part(text=text))
    if call is not None:
        parts.append(types.Part(function_call=types.FunctionCall(id=call[0], name=call[1], args=call[2])))
    if result is not None:
        role = "user"
        parts.append(types.Part(function_response=types.FunctionResponse(id=result[0], name=result[1], response=result[2])))
    kwargs: dict[str, Any] = {}
    if timestamp is not None:
        kwargs["timestamp"] = timestamp
    if usage is not None:
        kwargs["usage_metadata"] = types.GenerateContentResponseUsageMetadata(
            prompt_token_count=usage[0], candidates_token_count=usage[1], total_token_count=usage[0] + usage[1]
        )
    if error is not None:
        kwargs["error_code"], kwargs["error_message"] = error, f"{error} happened"
    return Event(
        author=author,
        invocation_id=invocation,
        content=types.Content(role=role, parts=parts) if parts else None,
        actions=EventActions(state_delta=delta or {}, artifact_delta=artifacts or {}),
        **kwargs,
    )


def canonical(value: Any) -> Any:
    """JSON round trip with sorted keys: how two read models are compared."""
    return json.loads(json.dumps(value, sort_keys=True, default=list))


def reference(store: Any, projection: Projection) -> dict[str, Any]:
    """The projection folded in memory from the whole log: what every read model must equal."""
    source = LogSource(store)
    events, position = [], 0
    while True:
        batch, last = source.read(position, 10_000)
        if last == position:
            break
        events += batch
        position = last
    views = encoded(projection, fold_events(projection, events))
    items = {f.name for f in projection.folds if f.items}
    # Entry-by-entry views that never got an entry have no rows.
    return canonical({"|".join(k): v for k, v in views.items() if not (k[0] in items and v == {})})


def stored(runner: ProjectionFollower) -> dict[str, Any]:
    """The runner's stored views, as JSON values."""
    folds = {f.name: f for f in runner.projection.folds}
    return canonical({"|".join(k): folds[k[0]].encode(v) for k, v in runner.views().items()})
