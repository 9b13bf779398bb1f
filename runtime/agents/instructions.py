"""Instruction templating: `{key}` and `{key?}` from state, `{artifact.name}` from artifacts."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from domain.errors import ChronicleError

if TYPE_CHECKING:
    from runtime.invocation_context import InvocationContext

_PLACEHOLDER = re.compile(r"{+[^{}]*}+")
_SCOPES = ("app", "user", "temp")


class InstructionVariableError(ChronicleError, KeyError):
    """An instruction names a state key or artifact that does not exist."""

    def __str__(self) -> str:
        return str(self.args[0])


def is_valid_state_name(name: str) -> bool:
    parts = name.split(":")
    if len(parts) == 1:
        return name.isidentifier()
    if len(parts) == 2 and parts[0] in _SCOPES:
        return parts[1].isidentifier()
    return False


async def inject_session_state(template: str, ctx: InvocationContext) -> str:
    """Replaces `{key}` with the state value (str of it; None gives ''), `{key?}` with '' when
    missing, `{artifact.name}` with the artifact's text. Braces around anything that is not a
    valid state name are left alone, so JSON examples in instructions survive."""
    if "{" not in template:
        return template
    pieces: list[str] = []
    last = 0
    for match in _PLACEHOLDER.finditer(template):
        pieces.append(template[last : match.start()])
        pieces.append(await _replace(match.group(), ctx))
        last = match.end()
    pieces.append(template[last:])
    return "".join(pieces)


async def _replace(placeholder: str, ctx: InvocationContext) -> str:
    name = placeholder.lstrip("{").rstrip("}").strip()
    optional = name.endswith("?")
    if optional:
        name = name[:-1]
    if name.startswith("artifact."):
        filename = name[len("artifact.") :]
        if ctx.artifact_service is None:
            if optional:
                return ""
            raise InstructionVariableError(
                f"The instruction of {ctx.agent.name!r} uses {{artifact.{filename}}} but the Runner has "
                "no artifact service."
            )
        artifact = await ctx.artifact_service.load_artifact(
            app_name=ctx.app_name, user_id=ctx.user_id, session_id=ctx.session.id, filename=filename
        )
        if artifact is None:
            if optional:
                return ""
            raise InstructionVariableError(
                f"The instruction of {ctx.agent.name!r} uses {{artifact.{filename}}} but the session has "
                f"no artifact {filename!r}; save it first or write {{artifact.{filename}?}}."
            )
        if artifact.text is not None:
            return artifact.text
        if artifact.inline_data is not None and artifact.inline_data.data is not None:
            try:
                return artifact.inline_data.data.decode("utf-8")
            except UnicodeDecodeError:
                return f"<binary artifact {filename}>"
        return str(artifact)
    if not is_valid_state_name(name):
        return placeholder
    state = ctx.session.state
    if name in state:
        value = state[name]
        return "" if value is None else str(value)
    if optional:
        return ""
    raise InstructionVariableError(
        f"The instruction of {ctx.agent.name!r} uses {{{name}}} but the session state has no key "
        f"{name!r}; set it first (e.g. in create_session(state=...)) or write {{{name}?}} to make it optional."
    )
