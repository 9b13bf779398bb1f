"""The user of a static eval case: its recorded messages, in order."""

from __future__ import annotations

from typing import Any

from .user_simulator import BaseUserSimulatorConfig, NextUserMessage, Status, UserSimulator


class StaticUserSimulator(UserSimulator):
    def __init__(self, *, static_conversation: list[Any]):
        super().__init__(BaseUserSimulatorConfig(), config_type=BaseUserSimulatorConfig)
        self.static_conversation = static_conversation
        self.invocation_idx = 0

    async def get_next_user_message(self, events: list[Any]) -> NextUserMessage:
        if self.invocation_idx >= len(self.static_conversation):
            return NextUserMessage(status=Status.STOP_SIGNAL_DETECTED)
        turn = self.static_conversation[self.invocation_idx]
        self.invocation_idx += 1
        return NextUserMessage(status=Status.SUCCESS, user_message=turn.user_content)

    def get_simulation_evaluator(self):
        return None
