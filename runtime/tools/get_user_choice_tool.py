"""get_user_choice: a long-running tool that offers the user options and waits for the pick."""

from __future__ import annotations

from typing import Optional

from runtime.tools.function_tool import LongRunningFunctionTool
from runtime.tools.tool_context import ToolContext


def get_user_choice(options: list[str], tool_context: ToolContext) -> Optional[str]:
    """Provides the options to the user and asks them to choose one."""
    tool_context.actions.skip_summarization = True
    return None  # the answer comes later, as the user's function response


get_user_choice_tool = LongRunningFunctionTool(get_user_choice)
