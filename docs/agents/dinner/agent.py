"""The README's `chronicle serve docs/agents` example: a scripted model, so it needs no API key
(for Gemini, write model="gemini-2.5-flash" and set GOOGLE_API_KEY)."""

from runtime import LlmAgent, ScriptedLlm, ToolContext


def book_table(people: int, time: str, tool_context: ToolContext) -> dict:
    """Books a table for `people` at `time`."""
    tool_context.state["booking"] = {"people": people, "time": time}
    return {"status": "confirmed"}


def _turn(request):
    if request.contents[-1].parts[0].function_response is not None:
        return "Booked: two at 19:30."
    return ScriptedLlm.call("book_table", people=2, time="19:30")


root_agent = LlmAgent(
    name="concierge", model=ScriptedLlm([_turn], cycle=True), instruction="You book tables.", tools=[book_table]
)
