"""What a code executor takes and gives back (google-adk's `code_executors.code_execution_utils`):
the code and its input files, stdout/stderr/exit status and output files, and the helpers that turn
code blocks in a model's answer into executable parts and results into result parts."""

from __future__ import annotations

import base64
import binascii
import copy
import dataclasses
from typing import Optional, Union

from google.genai import types


@dataclasses.dataclass(frozen=True)
class File:
    """A named file: its content as text, raw bytes, or base64-encoded bytes."""

    name: str
    content: Union[str, bytes]
    mime_type: str = "text/plain"


@dataclasses.dataclass
class CodeExecutionInput:
    code: str
    input_files: list[File] = dataclasses.field(default_factory=list)
    execution_id: Optional[str] = None  # for executors that keep state between runs


@dataclasses.dataclass
class CodeExecutionResult:
    stdout: str = ""
    stderr: str = ""
    output_files: list[File] = dataclasses.field(default_factory=list)
    exit_code: Optional[int] = None  # None: the executor cannot tell how the process exited


class CodeExecutionUtils:
    @staticmethod
    def get_encoded_file_content(data: bytes) -> bytes:
        """``data`` base64-encoded, unless it already is."""
        try:
            if base64.b64encode(base64.b64decode(data)) == data:
                return data
        except binascii.Error:
            pass
        return base64.b64encode(data)

    @staticmethod
    def extract_code_and_truncate_content(
        content: types.Content, code_block_delimiters: list[tuple[str, str]]
    ) -> Optional[str]:
        """The first code block of ``content``, which is cut to end with it (as an executable
        part); None when there is none. An executable part not yet followed by its result wins
        over code written in text."""
        if not content or not content.parts:
            return None
        parts = content.parts
        for index, part in enumerate(parts):
            answered = index + 1 < len(parts) and parts[index + 1].code_execution_result
            if part.executable_code and not answered:
                content.parts = parts[: index + 1]
                return part.executable_code.code
        texts = [part for part in parts if part.text]
        if not texts:
            return None
        text = "\n".join(part.text or "" for part in texts)
        found = _first_block(text, code_block_delimiters)
        if found is None:
            return None
        start, code = found
        leading = copy.deepcopy(texts[0])
        content.parts = []
        if text[:start]:
            leading.text = text[:start]
            content.parts.append(leading)
        content.parts.append(CodeExecutionUtils.build_executable_code_part(code))
        return code

    @staticmethod
    def build_executable_code_part(code: str) -> types.Part:
        return types.Part.from_executable_code(code=code, language=types.Language.PYTHON)

    @staticmethod
    def build_code_execution_result_part(code_execution_result: CodeExecutionResult) -> types.Part:
        """A failed outcome carrying stderr when there is any; otherwise the output and the names
        of the files saved."""
        result = code_execution_result
        if result.stderr:
            return types.Part.from_code_execution_result(outcome=types.Outcome.OUTCOME_FAILED, output=result.stderr)
        sections = []
        if result.stdout or not result.output_files:
            sections.append(f"Code execution result:\n{result.stdout}\n")
        if result.output_files:
            sections.append("Saved artifacts:\n" + ",".join(f"`{f.name}`" for f in result.output_files))
        return types.Part.from_code_execution_result(outcome=types.Outcome.OUTCOME_OK, output="\n\n".join(sections))

    @staticmethod
    def convert_code_execution_parts(
        content: types.Content,
        code_block_delimiter: tuple[str, str],
        execution_result_delimiters: tuple[str, str],
    ) -> None:
        """Rewrites a trailing executable-code part as a delimited code block, and a content that
        is only a code-execution result as delimited text from the user (in place)."""
        if not content.parts:
            return
        last = content.parts[-1]
        if last.executable_code:
            opening, closing = code_block_delimiter
            content.parts[-1] = types.Part(text=opening + (last.executable_code.code or "") + closing)
        elif len(content.parts) == 1 and last.code_execution_result:
            output = last.code_execution_result.output
            opening, closing = execution_result_delimiters
            content.parts[-1] = types.Part(text="" if output is None else opening + output + closing)
            content.role = "user"


def _first_block(text: str, delimiters: list[tuple[str, str]]) -> Optional[tuple[int, str]]:
    """(where the earliest complete, non-empty-delimited block starts, its code), or None."""
    best: Optional[tuple[int, int, int]] = None  # start, code start, code end
    for opening, closing in delimiters:
        start = text.find(opening)
        if start == -1:
            continue
        end = text.find(closing, start + len(opening))
        if end == -1:
            continue
        if best is None or start < best[0]:
            best = (start, start + len(opening), end)
    if best is None or best[1] == best[2]:
        return None
    return best[0], text[best[1] : best[2]]
