"""How `Runner.run_debug` prints a conversation: line for line what google-adk 2.13 prints.

Each event's text parts are joined on one `author > text` line; with `verbose`, tool calls,
tool results, code and files get a bracketed line each (long values cut short with '...').
Thoughts are shown only with `verbose`.
"""

from __future__ import annotations

from domain.events import Event

ARGS_LIMIT, RESPONSE_LIMIT, CODE_OUTPUT_LIMIT = 50, 100, 100


def _cut(text: str, limit: int) -> str:
    return text[:limit] + "..." if len(text) > limit else text


def _bracketed(part) -> str | None:
    """The verbose line of a part that is not text, or None if it shows nothing."""
    if part.function_call:
        return f"[Calling tool: {part.function_call.name}({_cut(str(part.function_call.args), ARGS_LIMIT)})]"
    if part.function_response:
        return f"[Tool result: {_cut(str(part.function_response.response), RESPONSE_LIMIT)}]"
    if part.executable_code:
        return f"[Executing {part.executable_code.language or 'code'} code...]"
    if part.code_execution_result:
        return f"[Code output: {_cut(str(part.code_execution_result.output or 'result'), CODE_OUTPUT_LIMIT)}]"
    if part.inline_data:
        return f"[Inline data: {part.inline_data.mime_type or 'data'}]"
    if part.file_data:
        return f"[File: {part.file_data.file_uri or 'file'}]"
    return None


def print_event(event: Event, *, verbose: bool = False) -> None:
    if not event.content or not event.content.parts:
        return
    pending: list[str] = []

    def flush() -> None:
        if pending:
            print(f"{event.author} > {''.join(pending)}")
            pending.clear()

    for part in event.content.parts:
        if part.thought and not verbose:
            continue
        if part.text:
            pending.append(part.text)
            continue
        flush()
        line = _bracketed(part) if verbose else None
        if line is not None:
            print(f"{event.author} > {line}")
    flush()
