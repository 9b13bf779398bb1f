"""ComputerUseToolset: a BaseComputer's actions offered to a computer-use model.

The model is told about the computer with Gemini's built-in `computer_use` tool (its environment
and the actions left out), not with function declarations; the actions it calls are dispatched to
`ComputerUseTool`s over the computer's methods, under both the 2.x names (`click_at`) and the 3.x
ones (`click`), the latter delegating to the former unless the computer implements them itself."""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
import math
import threading
import weakref
from typing import Any, Awaitable, Callable, Collection, Literal, Optional, Union

from google.genai import types

from runtime.contexts import ReadonlyContext
from runtime.models.llm_request import LlmRequest
from runtime.tools import url_safety
from runtime.tools.base_toolset import BaseToolset
from runtime.tools.computer_use import action_names
from runtime.tools.computer_use.base_computer import BaseComputer, ComputerState
from runtime.tools.computer_use.computer_use_tool import ComputerUseTool
from runtime.tools.tool_context import ToolContext

logger = logging.getLogger("google_adk." + __name__)  # ADK's logger names: users filter on "google_adk"

# BaseComputer methods that are not actions.
EXCLUDED_METHODS = {"screen_size", "environment", "close", "prepare"}
_NOT_OFFERED = EXCLUDED_METHODS | {"type_text"}  # type_text is offered as the 3.x `type`

URL_REFUSED_ERROR = (
    "navigate refused: url must be http(s) and must not target a private or link-local address."
)

Adapter = Callable[[Callable[..., Any]], Union[Callable[..., Any], Awaitable[Callable[..., Any]]]]


class _LoopLocks:
    """One asyncio.Lock per event loop (a lock belongs to the loop it was first used on)."""

    def __init__(self) -> None:
        self._locks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = weakref.WeakKeyDictionary()
        self._guard = threading.Lock()

    def get(self) -> asyncio.Lock:
        loop = asyncio.get_running_loop()
        with self._guard:
            lock = self._locks.get(loop)
            if lock is None:
                lock = self._locks[loop] = asyncio.Lock()
            return lock


# Actions on one computer run one at a time, even from several toolsets or sessions sharing it.
_COMPUTER_LOCKS: weakref.WeakKeyDictionary[BaseComputer, _LoopLocks] = weakref.WeakKeyDictionary()
_COMPUTER_LOCKS_BY_ID: dict[int, _LoopLocks] = {}  # computers that cannot be weakly referenced
_COMPUTER_LOCKS_GUARD = threading.Lock()


def _execution_lock(computer: BaseComputer) -> asyncio.Lock:
    with _COMPUTER_LOCKS_GUARD:
        try:
            locks = _COMPUTER_LOCKS.get(computer)
            if locks is None:
                locks = _COMPUTER_LOCKS[computer] = _LoopLocks()
        except TypeError:
            locks = _COMPUTER_LOCKS_BY_ID.setdefault(id(computer), _LoopLocks())
    return locks.get()


def _returns_state(annotation: Any) -> bool:
    return annotation is inspect.Signature.empty or annotation is ComputerState or (
        isinstance(annotation, str) and annotation.split(".")[-1] == "ComputerState"
    )


class ComputerUseToolset(BaseToolset):
    """The actions of `computer` as tools for a computer-use model.

    `excluded_predefined_functions`: actions not to offer, by either schema's name (each is
    translated for the model the request goes to). `allow_private_network_access`: `navigate`
    refuses URLs whose host is not public unless this is True (e.g. to drive a local app)."""

    def __init__(
        self,
        *,
        computer: BaseComputer,
        excluded_predefined_functions: Optional[list[str]] = None,
        allow_private_network_access: bool = False,
    ):
        super().__init__()
        self._computer = computer
        self._excluded_predefined_functions = excluded_predefined_functions
        self._allow_private_network_access = allow_private_network_access
        self._initialized = False
        self._closed = False
        self._tools: Optional[list[ComputerUseTool]] = None
        self._init_locks = _LoopLocks()

    def __getstate__(self) -> dict[str, Any]:
        # Copies start fresh: no locks, no tools, not initialized.
        state = dict(self.__dict__)
        state.update(_init_locks=None, _initialized=False, _closed=False, _tools=None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._init_locks = _LoopLocks()

    async def _ensure_initialized(self) -> None:
        if self._initialized:
            return
        async with self._init_locks.get():
            if not self._initialized:
                await self._computer.initialize()
                self._initialized = True
                self._closed = False

    # -- which actions the computer implements ---------------------------------------------------

    def _is_implemented_on_computer(
        self, method_name: str, required_params: tuple[str, ...] = (), optional_params: tuple[str, ...] = ()
    ) -> bool:
        """Whether the computer's class has a coroutine `method_name` that takes the required
        parameters and nothing else without a default (beyond the optional ones, intent, tool_context)."""
        method = getattr(type(self._computer), method_name, None)
        if not inspect.iscoroutinefunction(method):
            return False
        try:
            signature = inspect.signature(method)
        except (TypeError, ValueError):
            return False
        if not _returns_state(signature.return_annotation):
            return False
        params = [p for p in signature.parameters.values() if p.name != "self"]
        named = {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
        takes_kwargs = any(p.kind is p.VAR_KEYWORD for p in params)
        if not takes_kwargs and not set(required_params) <= named:
            return False
        optional = set(optional_params) | {"intent", "tool_context"}
        for p in params:
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or p.name in required_params:
                continue
            if p.kind is p.POSITIONAL_ONLY or p.default is p.empty or p.name not in optional:
                return False
        return True

    def _implements_mouse_action(self, name: str) -> bool:
        return self._is_implemented_on_computer(name, required_params=("x", "y"), optional_params=("button",))

    def _implements_key_action(self, name: str) -> bool:
        return self._is_implemented_on_computer(name, required_params=("key",))

    def _unimplemented_modern_actions(self) -> list[str]:
        return [n for n in action_names.OPTIONAL_MOUSE_ACTIONS if not self._implements_mouse_action(n)] + [
            n for n in action_names.OPTIONAL_KEY_ACTIONS if not self._implements_key_action(n)
        ]

    # -- the tools' functions ------------------------------------------------------------------

    def _wrap_method_with_state_binding(self, method: Callable[..., Any], *, tool_name: Optional[str] = None):
        """`method` as a tool function named `tool_name`: it runs under the computer's lock, after
        `computer.prepare(tool_context)`, and gets the tool context only if it asks for one."""
        computer = self._computer
        name = tool_name or method.__name__
        try:
            signature = inspect.signature(method)
        except (TypeError, ValueError):
            signature = inspect.Signature(
                [inspect.Parameter("args", inspect.Parameter.VAR_POSITIONAL),
                 inspect.Parameter("kwargs", inspect.Parameter.VAR_KEYWORD)]
            )
        context_param = signature.parameters.get("tool_context")
        forwards_context = context_param is not None and context_param.kind in (
            context_param.POSITIONAL_OR_KEYWORD, context_param.KEYWORD_ONLY
        )

        @functools.wraps(method)
        async def wrapper(*args: Any, tool_context: Optional[ToolContext] = None, **kwargs: Any) -> Any:
            async with _execution_lock(computer):
                if tool_context is not None:
                    await computer.prepare(tool_context)
                if forwards_context:
                    return await method(*args, tool_context=tool_context, **kwargs)
                return await method(*args, **kwargs)

        wrapper.__name__ = wrapper.__qualname__ = name
        params = [p for p in signature.parameters.values() if p.name != "tool_context" and p.kind is not p.VAR_KEYWORD]
        context = inspect.Parameter("tool_context", inspect.Parameter.KEYWORD_ONLY, default=None, annotation=ToolContext)
        var_kwargs = [p for p in signature.parameters.values() if p.kind is p.VAR_KEYWORD]
        wrapper.__signature__ = signature.replace(parameters=[*params, context, *var_kwargs])  # type: ignore[attr-defined]
        return wrapper

    def _wrap_navigate_with_url_validation(self, navigate: Callable[..., Any]) -> Callable[..., Any]:
        """`navigate` that refuses a URL the model must not open (see `url_safety`), answering with
        the error and the page it stays on."""

        @functools.wraps(navigate)
        async def wrapper(url: str, *args: Any, **kwargs: Any) -> Any:
            try:
                host = url_safety.url_host(url)
                if not self._allow_private_network_access:
                    if url_safety.is_blocked_name(host):
                        raise ValueError("hostname is blocked")
                    await asyncio.to_thread(url_safety.resolve_public, host)
            except ValueError:
                logger.warning("Refusing navigate(): url failed safety validation.")
                state: ComputerState = await self._computer.current_state()
                return {"error": URL_REFUSED_ERROR, "url": state.url}
            return await navigate(url, *args, **kwargs)

        return wrapper

    def _legacy_methods(self, excluded: Collection[str]) -> list[Callable[..., Any]]:
        """BaseComputer's actions, under their own names."""
        methods = []
        for name in dir(BaseComputer):
            if name.startswith("_") or name in _NOT_OFFERED or name in excluded:
                continue
            if not callable(getattr(BaseComputer, name, None)):
                continue
            method = getattr(self._computer, name)
            if name == "navigate":
                method = self._wrap_navigate_with_url_validation(method)
            elif name == "wait":
                method = self._fractional_wait(method)
            methods.append(self._wrap_method_with_state_binding(method, tool_name=name))
        return methods

    @staticmethod
    def _fractional_wait(wait_method: Callable[..., Awaitable[ComputerState]]) -> Callable[..., Any]:
        async def wait(seconds: float = 1) -> ComputerState:
            """Waits for the specified number of seconds."""
            return await wait_method(max(0, math.ceil(seconds)))  # the computer takes whole seconds

        return wait

    def _build_modern_alias_methods(self, excluded: Collection[str]) -> list[Callable[..., Any]]:
        """The 3.x actions: the computer's own method when it implements one, else a shim over
        the 2.x action."""
        computer = self._computer

        async def click(x: int, y: int) -> ComputerState:
            """Clicks at the specified (x, y) coordinates."""
            return await computer.click_at(x, y)

        async def move(x: int, y: int) -> ComputerState:
            """Moves the cursor to the specified (x, y) coordinates."""
            return await computer.hover_at(x, y)

        async def type_action(text: str, press_enter: bool = False) -> ComputerState:
            """Types text into the currently focused element."""
            return await computer.type_text(text=text, press_enter=press_enter)

        async def scroll(
            x: int, y: int, direction: Literal["up", "down", "left", "right"] = "down", magnitude_in_pixels: int = 300
        ) -> ComputerState:
            """Scrolls the webpage at the specified coordinates."""
            return await computer.scroll_at(x, y, direction, magnitude_in_pixels)

        async def take_screenshot() -> ComputerState:
            """Takes a screenshot of the current webpage state."""
            return await computer.current_state()

        async def press_key(key: str) -> ComputerState:
            """Presses a single keyboard key."""
            return await computer.key_combination([key])

        async def hotkey(keys: list[str]) -> ComputerState:
            """Presses a combination of keyboard keys simultaneously."""
            return await computer.key_combination(keys)

        # name -> (required, optional parameters of the computer's own method, the shim)
        aliases: dict[str, tuple[tuple[str, ...], tuple[str, ...], Callable[..., Any]]] = {
            "click": (("x", "y"), ("button",), click),
            "move": (("x", "y"), (), move),
            "type": (("text",), ("press_enter",), type_action),
            "scroll": (("x", "y", "direction"), ("magnitude_in_pixels",), scroll),
            "take_screenshot": ((), (), take_screenshot),
            "press_key": (("key",), (), press_key),
            "hotkey": (("keys",), (), hotkey),
        }
        methods = []
        for name, (required, optional, shim) in aliases.items():
            if name in excluded:
                continue
            own = self._is_implemented_on_computer(name, required_params=required, optional_params=optional)
            methods.append(self._wrap_method_with_state_binding(getattr(computer, name) if own else shim, tool_name=name))
        for name in action_names.OPTIONAL_MOUSE_ACTIONS:
            if name not in excluded and self._implements_mouse_action(name):
                methods.append(self._wrap_method_with_state_binding(getattr(computer, name), tool_name=name))
        for name in action_names.OPTIONAL_KEY_ACTIONS:
            if name not in excluded and self._implements_key_action(name):
                methods.append(self._wrap_method_with_state_binding(getattr(computer, name), tool_name=name))
        return methods

    # -- the toolset ---------------------------------------------------------------------------

    async def get_tools(self, readonly_context: Optional[ReadonlyContext] = None) -> list[ComputerUseTool]:  # type: ignore[override]
        if self._tools:
            return self._tools
        await self._ensure_initialized()
        async with self._init_locks.get():
            if not self._tools:
                screen_size = await self._computer.screen_size()
                excluded = action_names.expand_exclusions(self._excluded_predefined_functions or ())
                methods = self._legacy_methods(excluded) + self._build_modern_alias_methods(excluded)
                self._tools = [ComputerUseTool(func=m, screen_size=screen_size) for m in methods]
        return self._tools

    async def close(self) -> None:
        async with self._init_locks.get():
            if not self._closed:
                await self._computer.close()
                self._closed = True
            self._initialized = False
            self._tools = None
        await super().close()

    async def process_llm_request(self, *, tool_context: ToolContext, llm_request: LlmRequest) -> None:
        """Registers the actions for dispatch and tells the model about the computer (once)."""
        for tool in self._tools or await self.get_tools():
            llm_request.tools_dict[tool.name] = tool
        llm_request.config = llm_request.config or types.GenerateContentConfig()
        llm_request.config.tools = llm_request.config.tools or []
        if any(isinstance(t, types.Tool) and t.computer_use for t in llm_request.config.tools):
            return
        environment = await self._computer.environment()
        excluded = action_names.exclusions_for_model(
            self._excluded_predefined_functions, llm_request.model, self._unimplemented_modern_actions()
        )
        llm_request.config.tools.append(
            types.Tool(
                computer_use=types.ComputerUse(
                    environment=getattr(types.Environment, environment.name, types.Environment.ENVIRONMENT_BROWSER),
                    excluded_predefined_functions=excluded,
                )
            )
        )

    @staticmethod
    async def adapt_computer_use_tool(method_name: str, adapter_func: Adapter, llm_request: LlmRequest) -> None:
        """Replaces the request's tool for BaseComputer action `method_name` with one over
        `adapter_func(original function)` (sync or async), named after the function it returns.
        An unknown or non-action name, or one the request lacks, is logged and ignored."""
        if method_name in _NOT_OFFERED or not callable(getattr(BaseComputer, method_name, None)):
            logger.warning("Method %s is not a valid BaseComputer method", method_name)
            return
        original = llm_request.tools_dict.get(method_name)
        if original is None:
            logger.warning("Method %s not found in tools_dict", method_name)
            return
        adapted = adapter_func(original.func)
        if inspect.isawaitable(adapted):
            adapted = await adapted
        tool = ComputerUseTool(
            func=adapted, screen_size=original._screen_size, virtual_screen_size=original._coordinate_space
        )
        llm_request.tools_dict[tool.name] = tool
        if tool.name != method_name:
            del llm_request.tools_dict[method_name]


def uses_computer(llm_request: LlmRequest) -> bool:
    return any(isinstance(t, types.Tool) and t.computer_use for t in (llm_request.config.tools or []))


async def prepare_gemini_request(llm_request: LlmRequest) -> None:
    """What Gemini needs of a computer-use request, as google-adk 2.13 sends it: no system
    instruction, and `wait` also answerable as the model's own `wait_5_seconds`."""
    if not uses_computer(llm_request):
        return
    llm_request.config.system_instruction = None
    wait_tool = llm_request.tools_dict.get("wait")

    def five_seconds(wait: Callable[..., Any]) -> Callable[..., Any]:
        async def wait_5_seconds(tool_context: Any = None) -> Any:
            return await wait(5, tool_context=tool_context)

        return wait_5_seconds

    await ComputerUseToolset.adapt_computer_use_tool("wait", five_seconds, llm_request)
    if wait_tool is not None and "wait_5_seconds" in llm_request.tools_dict:
        llm_request.tools_dict["wait"] = wait_tool
