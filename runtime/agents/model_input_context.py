"""RunConfig.model_input_context: per-turn contents that go to the model and never to the log."""

from __future__ import annotations

from typing import Optional

from google.genai import types


def insert_model_input_context(
    contents: list[types.Content], user_content: Optional[types.Content], extra: Optional[list[types.Content]]
) -> None:
    """Puts copies of `extra` right before the invocation's user message in `contents` (at the
    start when the request does not hold it), where google-adk 2.13 puts them."""
    if not extra:
        return
    at = 0
    if user_content is not None:
        at = next((i for i in range(len(contents) - 1, -1, -1) if contents[i] == user_content), 0)
    contents[at:at] = [c.model_copy(deep=True) for c in extra]
