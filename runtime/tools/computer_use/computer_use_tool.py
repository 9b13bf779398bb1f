"""ComputerUseTool: one computer action, with the model's virtual coordinates mapped to the screen."""

from __future__ import annotations

import base64
import binascii
import logging
from typing import TYPE_CHECKING, Any, Callable, Optional

from google.genai import types

from runtime.tools.computer_use.base_computer import ComputerState
from runtime.tools.function_tool import FunctionTool
from runtime.tools.tool_context import ToolContext

if TYPE_CHECKING:
    from runtime.models import LlmRequest

logger = logging.getLogger("google_adk." + __name__)  # ADK's logger names: users filter on "google_adk"

_X_FIELDS = ("x", "destination_x", "start_x", "end_x")
_Y_FIELDS = ("y", "destination_y", "start_y", "end_y")
# Newer models name a drag's ends start_/end_; a computer written for the older names gets those.
_OLDER_NAMES = {"start_x": "x", "start_y": "y", "end_x": "destination_x", "end_y": "destination_y"}


def _checked_size(size: Any, label: str) -> tuple[int, int]:
    if not isinstance(size, tuple) or len(size) != 2:
        raise ValueError(f"{label} must be a tuple of (width, height)")
    if size[0] <= 0 or size[1] <= 0:
        raise ValueError(f"{label} dimensions must be positive")
    return size


class ComputerUseTool(FunctionTool):
    """A computer action as a tool. The model points in a virtual space (1000x1000 unless told
    otherwise), whatever the screen; each coordinate is scaled to `screen_size` and clamped onto
    it. A `ComputerState` result goes back as a PNG image and the URL.

    A call whose `safety_decision` says `require_confirmation` does not run until a person
    approves it (the answer then carries `safety_acknowledgement`); a rejected one never runs."""

    def __init__(
        self,
        *,
        func: Callable[..., Any],
        screen_size: tuple[int, int],
        virtual_screen_size: tuple[int, int] = (1000, 1000),
    ):
        super().__init__(func=func)
        self._screen_size = _checked_size(screen_size, "screen_size")
        self._coordinate_space = _checked_size(virtual_screen_size, "virtual_screen_size")

    def _scaled(self, value: Any, axis: int, label: str) -> int:
        if not isinstance(value, (int, float)):
            raise ValueError(f"{label} coordinate must be numeric, got {type(value)}")
        scaled = int(value / self._coordinate_space[axis] * self._screen_size[axis])
        return max(0, min(scaled, self._screen_size[axis] - 1))

    def _normalize_x(self, x: int) -> int:
        return self._scaled(x, 0, "x")

    def _normalize_y(self, y: int) -> int:
        return self._scaled(y, 1, "y")

    def _screen_args(self, args: dict[str, Any]) -> dict[str, Any]:
        """The call's arguments with coordinates on the real screen, under names the function takes."""
        args = dict(args)
        for names, normalize in ((_X_FIELDS, self._normalize_x), (_Y_FIELDS, self._normalize_y)):
            for name in names:
                if name in args:
                    scaled = normalize(args[name])
                    logger.debug("Normalized %s: %s -> %s", name, args[name], scaled)
                    args[name] = scaled
        if "start_x" not in self._signature.parameters:
            for newer, older in _OLDER_NAMES.items():
                if newer in args and older not in args:
                    args[older] = args.pop(newer)
        return args

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        confirmation = tool_context.tool_confirmation
        if confirmation is None:
            decision = args.get("safety_decision") or {}
            if decision.get("decision") == "require_confirmation":
                tool_context.request_confirmation(
                    hint=decision.get("explanation") or "This computer use action requires safety confirmation."
                )
                tool_context.actions.skip_summarization = True
                return {"error": "This tool call requires confirmation, please approve or reject."}
        elif not confirmation.confirmed:
            return {"error": "This tool call is rejected."}

        result = await super().run_async(args=self._screen_args(args), tool_context=tool_context)
        response = result
        if isinstance(result, ComputerState):
            response = {
                "image": {"mimetype": "image/png", "data": base64.b64encode(result.screenshot).decode("utf-8")},
                "url": result.url,
            }
        if confirmation is not None:  # approved: the model must acknowledge the safety decision
            if not isinstance(response, dict):
                response = {"result": response}
            response["safety_acknowledgement"] = "true"
        return response

    async def process_llm_request(self, *, tool_context: ToolContext, llm_request: LlmRequest) -> None:
        """Nothing: the model knows computer actions from the toolset's `computer_use` tool, not
        from function declarations (the toolset registers this tool for dispatch)."""

    def function_response_parts(self, response: dict[str, Any]) -> Optional[list[types.FunctionResponsePart]]:
        """Moves the screenshot out of `response` into an image part of the function response,
        so the model sees it as an image (the rest of the response stays as JSON)."""
        image = response.get("image")
        if not isinstance(image, dict):
            return None
        data, mime_type = image.get("data"), image.get("mimetype")
        if not isinstance(data, (str, bytes)) or not isinstance(mime_type, str):
            return None
        try:
            part = types.FunctionResponsePart.from_bytes(data=base64.b64decode(data), mime_type=mime_type)
        except (binascii.Error, ValueError):
            logger.exception("The computer's screenshot is not valid base64; it stays in the response.")
            return None
        del response["image"]
        return [part]
