"""Eval runs in the viewer (operator only: a run's sessions belong to the users of its cases):

    GET /apps/{app}/eval/runs                 the app's recorded eval runs, newest first
    GET /apps/{app}/eval/compare?a=RUN&b=RUN  two runs side by side: per case and turn, what changed
                                              from A to B (tool calls, arguments, answer, tokens)
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from domain.errors import InvalidArgumentError
from runtime.server import access
from runtime.server.http import dump, respond


async def runs(request: Request) -> Response:
    from runtime.evaluation.compare import eval_runs

    access.caller(request).check_operator("Listing an app's eval runs")
    app_name = access.path(request, "app_name")
    services = await access.for_stored(request, app_name)
    return respond(dump(await services.store.call(eval_runs, services.store, app_name)))


async def compare(request: Request) -> Response:
    from runtime.evaluation.compare import compare_runs

    access.caller(request).check_operator("Comparing eval runs")
    app_name = access.path(request, "app_name")
    run_a, run_b = request.query_params.get("a"), request.query_params.get("b")
    if not run_a or not run_b:
        raise InvalidArgumentError("Name the two eval runs to compare: ?a=RUN_ID&b=RUN_ID.")
    services = await access.for_stored(request, app_name)
    cases = await services.store.call(compare_runs, services.store, run_a, run_b, app_name)
    return respond(dump({"a": run_a, "b": run_b, "cases": cases}))


ROUTES = [
    Route("/apps/{app_name}/eval/runs", runs, methods=["GET"]),
    Route("/apps/{app_name}/eval/compare", compare, methods=["GET"]),
]
