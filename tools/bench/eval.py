"""`chronicle bench eval`: cases per second of a 100-case eval set on google-adk 2.13's evaluation and on
Chronicle's, in one process: the same agent (one tool, a rule-driven scripted model built from each library's
own names), the same eval set (two turns a case), the same metrics (ADK's default config: tool trajectory and
ROUGE-1 response match, plus the efficiency metrics), both on in-memory sessions.

google-adk's side runs what `adk eval` and `AgentEvaluator` run: its LocalEvalService, inference then
evaluation. Time is this process's CPU time (its threads included; on a shared machine wall time is mostly
other jobs' noise). The runs alternate who goes first, each after a full collection (so neither side's
garbage is collected on the other's clock); the figure is the median over runs, the ratio the median of each
run's Chronicle rate over ADK's. Each side first evaluates a small set untimed, so first-use costs are no one's figure.
Both sides must pass every case, else the bench fails: a fast wrong answer is no figure.

google-adk pins google-genai below 3, so this runs in google-adk's environment (see tools/bench/adk.py).
"""

from __future__ import annotations

import asyncio
import gc
import logging
import sys
import time
import types as pytypes
from typing import Any

from google.genai import types

from tools.bench.common import Stopwatch, Table, median

KINDS = ["memory"]
CASES, QUICK_CASES = 100, 10
CITIES = {"Paris": "sunny", "Rome": "rain", "Oslo": "snow", "Lima": "fog"}
TARGET = 5.0

INSTALL = (
    "`chronicle bench eval` runs google-adk's evaluation beside Chronicle's, and google-adk (with rouge-score) "
    "is not installed here. It pins google-genai below 3, so give it an environment of its own: "
    "python -m venv .venv-adk && .venv-adk/bin/pip install -e '.[adk,eval]' && .venv-adk/bin/chronicle bench eval"
)


def import_adk_evaluation() -> pytypes.SimpleNamespace:
    """google-adk's evaluation modules. Its metric registry imports the Vertex AI facades (google-cloud-aiplatform,
    the heaviest part of google-adk's `eval` extra) at import time; the local metrics never reach them, so where
    that package is absent an empty stand-in lets the import through."""
    for name in ("agentplatform", "vertexai"):
        try:
            __import__(name)
        except ImportError:
            sys.modules.setdefault(name, pytypes.ModuleType(name))
    try:
        from google.adk.evaluation import base_eval_service as base
        from google.adk.evaluation.eval_config import EvalConfig, get_eval_metrics_from_config
        from google.adk.evaluation.eval_set import EvalSet
        from google.adk.evaluation.in_memory_eval_sets_manager import InMemoryEvalSetsManager
        from google.adk.evaluation.local_eval_service import LocalEvalService
        from google.adk.evaluation.simulation.user_simulator_provider import UserSimulatorProvider
    except ImportError as e:
        raise ImportError(INSTALL) from e
    return pytypes.SimpleNamespace(base=base, EvalConfig=EvalConfig, metrics=get_eval_metrics_from_config,
                                   EvalSet=EvalSet, Manager=InMemoryEvalSetsManager, Service=LocalEvalService,
                                   Simulators=UserSimulatorProvider)


def _reply(contents: list[types.Content]) -> types.Content:
    """The rule: a city named in the last user text gets a tool call; a tool's result gets an answer."""
    last = contents[-1]
    for part in last.parts or []:
        if part.function_response:
            r = part.function_response.response
            return types.Content(role="model", parts=[types.Part(text=f"The weather in {r['city']} is {r['forecast']}.")])
    city = " ".join(p.text or "" for p in last.parts or []).rstrip("?").split()[-1]
    return types.Content(role="model", parts=[types.Part(function_call=types.FunctionCall(
        name="get_weather", args={"city": city}))])


def get_weather(city: str) -> dict:
    """Returns the weather in a city."""
    return {"city": city, "forecast": CITIES.get(city, "unknown")}


def _agent(LlmAgent: Any, BaseLlm: Any, LlmResponse: Any) -> Any:
    class RuleModel(BaseLlm):
        model: str = "bench-rule"

        async def generate_content_async(self, llm_request, stream: bool = False):
            yield LlmResponse(content=_reply(llm_request.contents))

    return LlmAgent(name="forecaster", model=RuleModel(), instruction="Tell the weather.", tools=[get_weather])


def eval_set_json(n: int) -> dict:
    """n cases of two turns, each expecting one call and its answer."""
    def turn(text: str, city: str) -> dict:
        return {"user_content": {"role": "user", "parts": [{"text": text}]},
                "final_response": {"role": "model", "parts": [{"text": f"The weather in {city} is {CITIES[city]}."}]},
                "intermediate_data": {"tool_uses": [{"name": "get_weather", "args": {"city": city}}]}}
    names = list(CITIES)
    return {"eval_set_id": "bench", "eval_cases": [
        {"eval_id": f"case_{i}", "session_input": {"app_name": "bench", "user_id": "u", "state": {}},
         "conversation": [turn(f"weather in {names[i % 4]}", names[i % 4]),
                          turn(f"and in {names[(i + 1) % 4]}?", names[(i + 1) % 4])]}
        for i in range(n)]}


CONFIG = {"criteria": {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8}}


async def _adk_side(adk: Any, agent: Any, data: dict) -> list[str]:
    eval_set = adk.EvalSet.model_validate(data)
    manager = adk.Manager()
    manager.create_eval_set(app_name="bench", eval_set_id="bench")
    for case in eval_set.eval_cases:
        manager.add_eval_case(app_name="bench", eval_set_id="bench", eval_case=case)
    service = adk.Service(root_agent=agent, eval_sets_manager=manager, user_simulator_provider=adk.Simulators())
    inferences = [r async for r in service.perform_inference(adk.base.InferenceRequest(
        app_name="bench", eval_set_id="bench", inference_config=adk.base.InferenceConfig()))]
    metrics = adk.metrics(adk.EvalConfig.model_validate(CONFIG))
    return [r.final_eval_status.name async for r in service.evaluate(adk.base.EvaluateRequest(
        inference_results=inferences, evaluate_config=adk.base.EvaluateConfig(eval_metrics=metrics)))]


async def _chronicle_side(agent: Any, data: dict) -> list[str]:
    from runtime.evaluation.eval_config import EvalConfig, get_eval_metrics_from_config
    from runtime.evaluation.eval_set import EvalSet
    from runtime.evaluation.local_eval_service import evaluate_eval_set

    metrics = get_eval_metrics_from_config(EvalConfig.model_validate(CONFIG))
    return [r.final_eval_status.name for r in await evaluate_eval_set(agent, EvalSet.model_validate(data), metrics)]


def run(kinds: list[str] | None, *, runs: int = 3, quick: bool = False, postgres_url: str | None = None) -> Table:
    unknown = [k for k in kinds or [] if k not in KINDS]
    if unknown:
        raise ValueError(f"unknown store kind(s) {', '.join(unknown)}; eval runs on memory")
    adk = import_adk_evaluation()
    logging.getLogger("google_adk").setLevel(logging.ERROR)  # its per-call telemetry notes are not the bench's output
    from google.adk.agents import LlmAgent as AdkAgent
    from google.adk.models.base_llm import BaseLlm as AdkLlm
    from google.adk.models.llm_response import LlmResponse as AdkResponse

    from runtime.agents import LlmAgent
    from runtime.models import BaseLlm, LlmResponse

    n = QUICK_CASES if quick else CASES
    sides = {"google-adk 2.13": lambda data: _adk_side(adk, _agent(AdkAgent, AdkLlm, AdkResponse), data),
             "chronicle": lambda data: _chronicle_side(_agent(LlmAgent, BaseLlm, LlmResponse), data)}
    for side in sides.values():  # warm-up, untimed
        asyncio.run(side(eval_set_json(2)))
    rates: dict[str, list[float]] = {name: [] for name in sides}
    order = list(sides)
    for _ in range(runs):
        for name in order:
            gc.collect()  # the other side's garbage is collected on no one's clock
            with Stopwatch(time.process_time) as watch:
                statuses = asyncio.run(sides[name](eval_set_json(n)))
            if statuses != ["PASSED"] * n:
                raise RuntimeError(f"bench eval: {name} did not pass every case ({statuses[:3]}...)")
            rates[name].append(n / watch.seconds)
        order.reverse()
    adk_rate, ours = median(rates["google-adk 2.13"]), median(rates["chronicle"])
    ratio = median([c / a for c, a in zip(rates["chronicle"], rates["google-adk 2.13"])])
    return Table(
        title=f"eval: {n} cases of 2 turns (tool trajectory, ROUGE-1, efficiency metrics), in memory, "
              f"median of {runs}; target ≥ {TARGET:g}× google-adk",
        headers=["runtime", "cases/s", "× google-adk"],
        rows=[["google-adk 2.13", f"{adk_rate:,.1f}", "1.00"], ["chronicle", f"{ours:,.1f}", f"{ratio:.2f}"]])
