"""The computer a computer-use model drives: its actions, each returning the screen afterwards."""

from __future__ import annotations

import abc
from enum import Enum
from typing import TYPE_CHECKING, Literal, Optional

import pydantic

if TYPE_CHECKING:
    from runtime.tools.tool_context import ToolContext

Direction = Literal["up", "down", "left", "right"]


class ComputerEnvironment(str, Enum):
    """Where the computer runs; the model is told (an unspecified one counts as a browser)."""

    ENVIRONMENT_UNSPECIFIED = "ENVIRONMENT_UNSPECIFIED"
    ENVIRONMENT_BROWSER = "ENVIRONMENT_BROWSER"


class ComputerState(pydantic.BaseModel):
    """What the model sees after an action: a PNG screenshot and the page's URL."""

    screenshot: bytes = pydantic.Field(default=None, description="Screenshot in PNG format")
    url: Optional[str] = pydantic.Field(default=None, description="Current webpage URL")


class BaseComputer(abc.ABC):
    """A computer the model can act on. Coordinates arrive already scaled to `screen_size()`.

    Every action returns the `ComputerState` after it. `initialize`/`close` bracket the computer's
    life (the toolset calls them once); `prepare` runs before each action with the tool context,
    for per-session resources kept in session state."""

    async def prepare(self, tool_context: "ToolContext") -> None:
        """Called before each action (e.g. to find this session's sandbox in state)."""

    @abc.abstractmethod
    async def screen_size(self) -> tuple[int, int]:
        """The screen's (width, height) in pixels."""

    @abc.abstractmethod
    async def open_web_browser(self) -> ComputerState:
        """Opens the web browser."""

    @abc.abstractmethod
    async def click_at(self, x: int, y: int) -> ComputerState:
        """Clicks at the point (x, y)."""

    @abc.abstractmethod
    async def hover_at(self, x: int, y: int) -> ComputerState:
        """Moves the pointer to (x, y), e.g. to open a menu that shows on hover."""

    @abc.abstractmethod
    async def type_text_at(
        self, x: int, y: int, text: str, press_enter: bool = True, clear_before_typing: bool = True
    ) -> ComputerState:
        """Types `text` into the field at (x, y), clearing it first and pressing ENTER after,
        unless told not to."""

    async def type_text(self, text: str, press_enter: bool = False) -> ComputerState:
        """Types into the focused element. This default presses one key per character through
        `key_combination` (a screenshot each); override it with the backend's bulk text input."""
        state: Optional[ComputerState] = None
        for char in text:
            state = await self.key_combination([char])
        if press_enter:
            state = await self.key_combination(["Enter"])
        return state if state is not None else await self.current_state()

    @abc.abstractmethod
    async def scroll_document(self, direction: Direction) -> ComputerState:
        """Scrolls the whole page up, down, left or right."""

    @abc.abstractmethod
    async def scroll_at(self, x: int, y: int, direction: Direction, magnitude: int) -> ComputerState:
        """Scrolls the element at (x, y) by `magnitude` in `direction`."""

    @abc.abstractmethod
    async def wait(self, seconds: int) -> ComputerState:
        """Waits `seconds` for the page to finish what it is doing."""

    @abc.abstractmethod
    async def go_back(self) -> ComputerState:
        """Goes back in the browser's history."""

    @abc.abstractmethod
    async def go_forward(self) -> ComputerState:
        """Goes forward in the browser's history."""

    @abc.abstractmethod
    async def search(self) -> ComputerState:
        """Opens a search engine's home page, to start a new search."""

    @abc.abstractmethod
    async def navigate(self, url: str) -> ComputerState:
        """Opens `url`."""

    @abc.abstractmethod
    async def key_combination(self, keys: list[str]) -> ComputerState:
        """Presses keys together, e.g. ["control", "c"]."""

    @abc.abstractmethod
    async def drag_and_drop(self, x: int, y: int, destination_x: int, destination_y: int) -> ComputerState:
        """Drags from (x, y) and drops at (destination_x, destination_y)."""

    @abc.abstractmethod
    async def current_state(self) -> ComputerState:
        """The screen as it is now."""

    async def initialize(self) -> None:
        """Starts the computer (called once, before the first action)."""

    async def close(self) -> None:
        """Releases the computer."""

    @abc.abstractmethod
    async def environment(self) -> ComputerEnvironment:
        """Where the computer runs."""
