"""A scripted model that calls a slow tool: a client can leave while it runs."""

import asyncio

from runtime import App, LlmAgent
from runtime.models.scripted import ScriptedLlm


async def wait_a_while(seconds: float) -> dict:
    """Waits, then says so."""
    await asyncio.sleep(seconds)
    return {"waited": seconds}


def _turn(request):
    """"wait S": one slow call; "chain N": N quick calls in a row; anything else is echoed."""
    last = request.contents[-1].parts[0]
    asked = next(c.parts[0].text for c in reversed(request.contents) if c.role == "user" and c.parts[0].text)
    if last.function_response is not None:
        calls = sum(1 for c in request.contents if c.parts[0].function_response is not None)
        if asked.startswith("chain ") and calls < int(asked.split()[1]):
            return ScriptedLlm.call("wait_a_while", seconds=0)
        return "Done waiting."
    text = last.text or ""
    if text.startswith("chain "):
        return ScriptedLlm.call("wait_a_while", seconds=0)
    if text.startswith("wait "):
        return ScriptedLlm.call("wait_a_while", seconds=float(text.split()[1]))
    return f"echo: {text}"


app = App(
    name="slow",
    root_agent=LlmAgent(name="sleeper", model=ScriptedLlm([_turn], cycle=True), tools=[wait_a_while]),
)
