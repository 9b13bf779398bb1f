"""`chronicle bench serve`'s app behind `chronicle serve`: the runtime benchmark's turn (the model
calls record_order, then answers), decided from the request, so concurrent sessions each get
their own call-then-answer (a cycling script would interleave them)."""

from runtime.agents.llm_agent import LlmAgent
from runtime.models import ScriptedLlm
from tools.bench.runtime import _answer_turn, _call_turn, record_order


def _turn(request):
    answered = request.contents[-1].parts[0].function_response is not None
    return _answer_turn(request) if answered else _call_turn(request)


root_agent = LlmAgent(
    name="orders",
    model=ScriptedLlm([_turn], cycle=True),
    instruction="You take orders. The user has ordered {orders?} times.",
    tools=[record_order],
)
