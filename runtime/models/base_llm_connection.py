"""BaseLlmConnection at google-adk 2.13's path: the interface of a live model connection, for
code that implements or types one. Chronicle opens none yet (no live mode), so nothing here
connects; a subclass provides each method."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import AsyncGenerator

from google.genai import types

from .llm_response import LlmResponse


class BaseLlmConnection(ABC):
    @abstractmethod
    async def send_history(self, history: list[types.Content]) -> None:
        """Sends the conversation so far (the model does not answer it)."""

    @abstractmethod
    async def send_content(self, content: types.Content) -> None:
        """Sends a user turn or function responses; the model answers."""

    @abstractmethod
    async def send_realtime(self, blob: types.Blob) -> None:
        """Sends a chunk of audio or video."""

    @abstractmethod
    def receive(self) -> AsyncGenerator[LlmResponse, None]:
        """The model's responses as they come."""

    @abstractmethod
    async def close(self) -> None:
        """Closes the connection."""
