"""google-adk's event JSON and Chronicle's: the one rule, both ways.

Chronicle's ``Event`` has every field of google-adk 2.13's ``Event`` (2.x's ``node_info``,
``output`` and ``isolation_scope`` included), so an ADK event's JSON (``model_dump(mode="json")``,
snake_case or camelCase) is stored field for field. A field a newer ADK adds is not dropped: it is
kept under ``custom_metadata["adk_fields"]`` and put back where it was on the way out. Chronicle's
own additions ADK would refuse (a compaction's ``event_ids``) are left out on the way out.

Used by the bridge for stock google-adk (``runtime/adk_bridge``) and by ``import-adk``; no
google-adk import here, so both work without it.
"""

from __future__ import annotations

from typing import Any

from domain.events import Event, EventActions

KEPT = "adk_fields"  # custom_metadata key of the ADK fields Chronicle's Event does not have

_EVENT_FIELDS = frozenset(Event.model_fields) | {f.alias for f in Event.model_fields.values() if f.alias}
_ACTION_FIELDS = frozenset(EventActions.model_fields) | {
    f.alias for f in EventActions.model_fields.values() if f.alias
}
_CUSTOM = ("custom_metadata", "customMetadata")


def from_adk_json(data: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """An ADK event's JSON as the data of Chronicle's ``Event``, and whether fields unknown to
    Chronicle were kept under ``custom_metadata["adk_fields"]``."""
    data = {k: v for k, v in data.items() if v is not None}
    extra = {k: data.pop(k) for k in list(data) if k not in _EVENT_FIELDS}
    if isinstance(data.get("actions"), dict):
        actions = {k: v for k, v in data["actions"].items() if v is not None}
        extra_actions = {k: actions.pop(k) for k in list(actions) if k not in _ACTION_FIELDS}
        if extra_actions:
            extra["actions"] = extra_actions
        data["actions"] = actions
    if extra:
        custom = next((data.pop(k) for k in _CUSTOM if k in data), None) or {}
        data["custom_metadata"] = {**custom, KEPT: extra}
    return data, bool(extra)


def to_adk_json(stored: dict[str, Any]) -> dict[str, Any]:
    """Chronicle's stored event JSON (``Event.to_json_dict()``) as the JSON of ADK's Event."""
    data = dict(stored)
    compaction = (data.get("actions") or {}).get("compaction")
    if compaction and "event_ids" in compaction:
        data["actions"] = {**data["actions"], "compaction": {k: v for k, v in compaction.items() if k != "event_ids"}}
    custom = data.get("custom_metadata")
    if custom and KEPT in custom:
        extra = dict(custom[KEPT])
        rest = {k: v for k, v in custom.items() if k != KEPT}
        if rest:
            data["custom_metadata"] = rest
        else:
            del data["custom_metadata"]
        if "actions" in extra:
            data["actions"] = {**(data.get("actions") or {}), **extra.pop("actions")}
        data.update(extra)
    return data
