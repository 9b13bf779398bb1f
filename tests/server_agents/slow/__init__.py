"""A scripted model that calls a slow tool: a client can leave while it runs."""

import asyncio

from runtime import App, LlmAgent
from runtime.models.scripted import ScriptedLlm


async def wait_a_while(seconds: float) -> dict:
    """Waits, then says so."""
    await asyncio.sleep(seconds)
    return {"waited": seconds}


def _turn(request):
    last = request.contents[-1].parts[0]
    if last.function_response is not None:
        return "Done waiting."
    text = last.text or ""
    if text.startswith("wait "):
        return ScriptedLlm.call("wait_a_while", seconds=float(text.split()[1]))
    return f"echo: {text}"


app = App(
    name="slow",
    root_agent=LlmAgent(name="sleeper", model=ScriptedLlm([_turn], cycle=True), tools=[wait_a_while]),
)
