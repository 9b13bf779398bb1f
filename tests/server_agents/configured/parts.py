"""What root_agent.yaml names by code reference."""

from runtime.models.scripted import ScriptedLlm


def shout(text: str) -> dict:
    """Says it louder."""
    return {"loud": text.upper()}


def count_turns(callback_context):
    callback_context.state["turns"] = callback_context.state.get("turns", 0) + 1


def _turn(request):
    last = request.contents[-1].parts[0]
    if last.function_response is not None:
        return f"Loud: {last.function_response.response['loud']}"
    return ScriptedLlm.call("shout", text=last.text or "")


model = ScriptedLlm([_turn], cycle=True)
