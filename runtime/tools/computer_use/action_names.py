"""Computer actions under both of Gemini's schemas: 1.x/2.x models know BaseComputer's names
(`click_at`, `key_combination`, ...); 3.x models know newer ones (`click`, `press_key`, ...).
Here: which names stand for the same action, and how a list of excluded actions reads for a model."""

from __future__ import annotations

from typing import Iterable, Optional

from packaging.version import InvalidVersion, Version

# Excluding the first excludes the others (the same action under the other schema).
COUNTERPARTS: dict[str, frozenset[str]] = {
    "click_at": frozenset({"click"}),
    "hover_at": frozenset({"move"}),
    "type_text_at": frozenset({"type"}),
    "type_text": frozenset({"type"}),
    "scroll_at": frozenset({"scroll"}),
    "scroll_document": frozenset(),
    "current_state": frozenset({"take_screenshot"}),
    "key_combination": frozenset({"press_key", "hotkey"}),
    "wait_5_seconds": frozenset({"wait"}),
    "click": frozenset({"click_at"}),
    "move": frozenset({"hover_at"}),
    "type": frozenset({"type_text_at"}),
    "scroll": frozenset({"scroll_at"}),  # scroll_document has no 3.x counterpart
    "take_screenshot": frozenset({"current_state"}),
    "press_key": frozenset(),  # key_combination goes only when both press_key and hotkey do
    "hotkey": frozenset(),
    "wait": frozenset({"wait_5_seconds"}),
}
# 3.x actions a computer offers only if it implements them itself.
OPTIONAL_MOUSE_ACTIONS = ("double_click", "triple_click", "middle_click", "right_click", "mouse_down", "mouse_up")
OPTIONAL_KEY_ACTIONS = ("key_down", "key_up")

LEGACY_NAMES = frozenset(
    {"click_at", "hover_at", "type_text_at", "type_text", "scroll_at", "scroll_document", "current_state",
     "key_combination", "wait_5_seconds"}
)
MODERN_NAMES = frozenset(
    {"click", "move", "type", "scroll", "take_screenshot", "press_key", "hotkey", "wait",
     *OPTIONAL_MOUSE_ACTIONS, *OPTIONAL_KEY_ACTIONS}
)
_TYPING = frozenset({"type", "type_text_at", "type_text"})


def expand_exclusions(names: Iterable[str]) -> set[str]:
    """The tools to leave out locally: the names given and their counterparts."""
    expanded = set(names)
    for name in list(expanded):
        expanded |= COUNTERPARTS.get(name, frozenset())
    if expanded & _TYPING:
        expanded |= _TYPING
    if {"press_key", "hotkey"} <= expanded:
        expanded.add("key_combination")
    return expanded


def gemini_major_version(model: Optional[str]) -> Optional[int]:
    """3 for "gemini-3-pro" (or a path ending in it); None for anything that is not gemini-<version>."""
    if not model:
        return None
    name = model.rsplit("/", 1)[-1]
    if not name.startswith("gemini-"):
        return None
    try:
        return Version(name[len("gemini-"):].split("-", 1)[0]).major
    except InvalidVersion:
        return None


def is_legacy_model(model: Optional[str]) -> bool:
    """A Gemini 1.x/2.x model. Names without a readable version get the 3.x schema."""
    major = gemini_major_version(model)
    return major is not None and major < 3


def exclusions_for_model(
    excluded: Optional[list[str]], model: Optional[str], unimplemented_modern: Iterable[str] = ()
) -> Optional[list[str]]:
    """`excluded` in the action names `model` knows (what `ComputerUse.excluded_predefined_functions`
    says); on a 3.x model the optional actions this computer lacks are excluded too."""
    if is_legacy_model(model):
        if excluded is None:
            return None
        both_keys = {"press_key", "hotkey"} <= set(excluded)
        resolved: list[str] = []
        for name in excluded:
            if name in ("press_key", "hotkey"):
                resolved.extend(["key_combination"] if both_keys else [])
            elif name == "type_text":
                resolved.append("type_text_at")
            elif name in MODERN_NAMES:
                resolved.extend(sorted(COUNTERPARTS.get(name, frozenset())))
            else:
                resolved.append(name)
        return list(dict.fromkeys(resolved))

    resolved = []
    for name in excluded or ():
        if name == "key_combination":
            resolved.extend(["press_key", "hotkey"])
        elif name in LEGACY_NAMES:
            resolved.extend(sorted(COUNTERPARTS.get(name, frozenset())))
        else:
            resolved.append(name)
    major = gemini_major_version(model)
    if major is not None and major >= 3:
        resolved.extend(unimplemented_modern)
    deduped = list(dict.fromkeys(resolved))
    return None if not deduped and excluded is None else deduped
