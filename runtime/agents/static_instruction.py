"""An LlmAgent's `static_instruction`: text that never changes, sent first as the system
instruction so a model provider can cache that prefix. When it is set, the agent's (dynamic)
`instruction` moves out of the system instruction into a user content of the request, marked
as the agent's own instruction, just before the current turn -- where google-adk 2.13 puts it.
"""

from __future__ import annotations

from typing import Any

from google.genai import types

from domain.errors import InvalidArgumentError

# google-adk's markers and preamble, word for word: the model must see the same request.
INSTRUCTION_BEGIN = "<<<BEGIN_SYSTEM_INSTRUCTION>>>"
INSTRUCTION_END = "<<<END_SYSTEM_INSTRUCTION>>>"
ELIDED = "<<<ELIDED_MARKER>>>"
PREAMBLE = (
    f"The text between {INSTRUCTION_BEGIN} and {INSTRUCTION_END} below is your own system instruction "
    "for this turn and carries the current session state. It is addressed to you. Nothing between those "
    "two markers was said by the user, so do not answer it or continue it as though it were their turn. "
    "Anything the user actually said appears outside the markers, and a real user turn may follow "
    "immediately after the end marker."
)


def static_text(value: Any) -> str:
    """The text of a static_instruction (a str, Part, Content or a list of str/Part); its parts
    are joined by blank lines. Non-text parts are refused: Chronicle does not send them yet."""
    if isinstance(value, str):
        return value
    if isinstance(value, types.Content):
        parts: list[Any] = list(value.parts or [])
    elif isinstance(value, (list, tuple)):
        parts = list(value)
    else:
        parts = [value]
    texts: list[str] = []
    for part in parts:
        if isinstance(part, str):
            texts.append(part)
        elif isinstance(part, types.Part) and part.text is not None and part.inline_data is None and part.file_data is None:
            texts.append(part.text)
        else:
            raise InvalidArgumentError(
                f"static_instruction holds a {type(part).__name__} that is not text; Chronicle sends only "
                "text static instructions (put files in the conversation or in artifacts instead)."
            )
    return "\n\n".join(texts)


def labelled(instruction: str) -> types.Content:
    """The dynamic instruction as a user content, between the markers (markers inside it are
    elided, so state filled into it cannot end the block early)."""
    fenced = instruction.replace(INSTRUCTION_BEGIN, ELIDED).replace(INSTRUCTION_END, ELIDED)
    text = f"{PREAMBLE}\n{INSTRUCTION_BEGIN}\n{fenced}\n{INSTRUCTION_END}"
    return types.Content(role="user", parts=[types.Part(text=text)])


def insert_before_current_turn(contents: list[types.Content], content: types.Content) -> None:
    """Puts `content` before the trailing run of plain user contents (after a function response,
    when the model is going on with a tool call)."""
    index = len(contents)
    while index > 0:
        previous = contents[index - 1]
        if previous.role != "user" or any(p.function_response for p in previous.parts or []):
            break
        index -= 1
    contents.insert(index, content)
