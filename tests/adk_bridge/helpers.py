"""Stock google-adk agents on the bridge: a scripted BaseLlm, a shop agent, and a runner."""

from __future__ import annotations

from typing import Any, Optional

from google.adk.agents import LlmAgent
from google.adk.apps import App, ResumabilityConfig
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import Runner
from google.adk.tools import LongRunningFunctionTool, ToolContext
from google.genai import types

from runtime.adk_bridge import ChronicleArtifactService, ChronicleMemoryService, ChronicleSessionService

APP = "shop"


class FakeLlm(BaseLlm):
    """Answers from what it is sent: "add X" calls the add tool, "approve X" the long-running
    approval tool, a tool's result is acknowledged, anything else is echoed."""

    model: str = "fake-llm"
    calls: int = 0

    async def generate_content_async(self, llm_request: Any, stream: bool = False):
        self.calls += 1
        last = (llm_request.contents or [None])[-1]
        responses = [p.function_response for p in (last.parts if last else None) or [] if p.function_response]
        if responses:
            yield LlmResponse(content=say(f"done: {responses[0].name} {responses[0].response}"))
            return
        text = last_user_text(llm_request)
        for verb, tool in (("add ", "add_to_cart"), ("approve ", "ask_approval")):
            if text.startswith(verb):
                call = types.FunctionCall(name=tool, args={"item": text[len(verb):]})
                yield LlmResponse(content=types.Content(role="model", parts=[types.Part(function_call=call)]))
                return
        yield LlmResponse(content=say(f"echo: {text}"))


def say(text: str) -> types.Content:
    return types.Content(role="model", parts=[types.Part(text=text)])


def last_user_text(llm_request: Any) -> str:
    for content in reversed(llm_request.contents or []):
        texts = [p.text for p in content.parts or [] if p.text] if content.role == "user" else []
        if texts:
            return " ".join(texts)
    return ""


async def add_to_cart(item: str, tool_context: ToolContext) -> dict:
    """Adds an item to the cart and writes a receipt."""
    cart = list(tool_context.state.get("cart", [])) + [item]
    tool_context.state["cart"] = cart
    tool_context.state["user:last_item"] = item
    tool_context.state["app:adds"] = tool_context.state.get("app:adds", 0) + 1
    tool_context.state["temp:scratch"] = item
    await tool_context.save_artifact("receipt.txt", types.Part(text=f"receipt: {', '.join(cart)}"))
    return {"cart": cart}


def ask_approval(item: str) -> dict:
    """Asks a manager to approve an item; the answer comes later."""
    return {"status": "pending", "item": item}


def shop_agent(llm: Optional[FakeLlm] = None) -> LlmAgent:
    return LlmAgent(
        name="clerk", model=llm or FakeLlm(), instruction="Help the shopper.",
        tools=[add_to_cart, LongRunningFunctionTool(func=ask_approval)],
    )


class Shop:
    """ADK's Runner over the bridge's three services, all on one Chronicle store."""

    def __init__(self, store_url: str, *, resumable: bool = False, **app: Any):
        self.sessions = ChronicleSessionService(store_url)
        self.artifacts = ChronicleArtifactService(self.sessions.store)
        self.memory = ChronicleMemoryService(self.sessions.store)
        self.llm = FakeLlm()
        self.app = App(name=APP, root_agent=shop_agent(self.llm),
                       resumability_config=ResumabilityConfig(is_resumable=resumable), **app)
        self.runner = Runner(app=self.app, session_service=self.sessions, artifact_service=self.artifacts,
                             memory_service=self.memory)

    async def turn(self, user: str, session_id: str, message: Any, **kwargs: Any) -> list[Any]:
        content = message if isinstance(message, types.Content) else types.Content(
            role="user", parts=[types.Part(text=message)])
        return [e async for e in self.runner.run_async(user_id=user, session_id=session_id, new_message=content,
                                                       **kwargs)]

    async def close(self) -> None:
        await self.runner.close()
        await self.sessions.close()
