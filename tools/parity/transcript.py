"""Runs one parity app in this interpreter and prints its transcript as JSON.

    python -m tools.parity.transcript APP --side adk         # as written, on google-adk
    python -m tools.parity.transcript APP --side chronicle   # `google.adk` rewritten to `runtime`

On Chronicle's side the app's source is rewritten as a porting user would rewrite it: every
`google.adk` becomes `runtime`, nothing else. A turn ``{"rewind_before": n}`` rewinds to before the
n-th invocation (Runner.rewind_async); an app that rewinds also gets the session's stored events
and its files' versions in its transcript. A turn ``{"resume": n}`` asks the Runner to resume the
n-th invocation, with no message. The transcript keeps what a user relies on and
leaves out what is random by design (ids, timestamps): per event its author, invocation (as an
ordinal), texts, calls, responses, state delta, artifact keys, transfer, escalation, error,
whether it waits for the client and a resumable app's checkpoints (agent_state, end_of_agent);
the state at the end; and what the model was shown each time. An app that sets `SHOW_PATHS = True`
also gets each event's node_info.path; a workflow app (`SHOW_NODES = True`) each event's node path,
branch, output and route, and the session's stored events. A turn that raises is a row of its
own (the exception's class and message); then the session's stored events are kept too, so what
the log records of a failure is compared.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import importlib.abc
import importlib.util
import json
import re
import sys
from typing import Any

APPS_PACKAGE = "tools.parity.apps"
REWRITTEN = ("tools.parity.apps.", "tools.parity.request_apps.")  # the packages written against google.adk
REWRITE = re.compile(r"\bgoogle\.adk\b")
USER, SESSION = "parity_user", "parity_session"


class RewritingFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Loads the apps' modules with `google.adk` rewritten to `runtime` in their source."""

    def find_spec(self, fullname, path, target=None):
        if not fullname.startswith(REWRITTEN):
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None and spec.origin and spec.origin.endswith(".py"):
                return importlib.util.spec_from_file_location(fullname, spec.origin, loader=self)
        return None

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        with open(module.__spec__.origin, encoding="utf-8") as f:
            source = REWRITE.sub("runtime", f.read())
        exec(compile(source, module.__spec__.origin, "exec"), module.__dict__)


def _part(part: Any) -> Any:
    if part.function_call is not None:
        return {"call": part.function_call.name, "args": _plain(dict(part.function_call.args or {}))}
    if part.function_response is not None:
        return {"response": part.function_response.name, "result": _plain(part.function_response.response)}
    if part.text is not None and not part.thought:
        return {"text": part.text}
    return None


RUNTIME_ID = re.compile(r"^adk-[0-9a-f-]{36}$")  # a call id the runtime made up: random by design
EVENT_ID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")  # a uuid4: random
ISO_TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?([+-]\d\d:\d\d|Z)?$")  # the form is kept


def _random_by_design(value: Any) -> Any:
    if isinstance(value, list):  # a list of ids (a checkpoint's interrupts)
        return [_random_by_design(v) for v in value]
    if not isinstance(value, str):
        return value
    if RUNTIME_ID.match(value):
        return "adk-<id>"
    if EVENT_ID.match(value):
        return "<uuid>"
    if ISO_TIME.match(value):
        return re.sub(r"\d", "0", value)
    return value


def _plain(value: Any) -> Any:
    """JSON-ready, with pydantic models dumped the way ADK's clients see them, and values random
    by design (runtime-made call ids, which a request's arguments repeat; event ids; times, whose
    form is kept) written as placeholders."""
    dumped = json.dumps(value, default=lambda v: v.model_dump(mode="json", exclude_none=True, by_alias=True))
    return json.loads(dumped, object_hook=lambda d: {k: _random_by_design(v) for k, v in d.items()})


def _contents(contents: list) -> list:
    return [{"role": c.role, "parts": [p for p in map(_part, c.parts or []) if p is not None]} for c in contents]


SHOW_PATHS = False  # set by an app with `SHOW_PATHS = True`: its events' node_info.path is compared too


def _event(event: Any, invocations: dict[str, int], nodes: bool = False) -> dict[str, Any]:
    number = invocations.setdefault(event.invocation_id, len(invocations) + 1)
    actions = event.actions
    row: dict[str, Any] = {"author": event.author, "invocation": number}
    if SHOW_PATHS:
        row["path"] = event.node_info.path
    if nodes:  # a workflow app's: where each event was made, and what it says of the node's output
        row.update(path=event.node_info.path, branch=event.branch)
        if event.output is not None:
            row["output"] = _plain(event.output)
        if actions.route is not None:
            row["route"] = actions.route
    if event.content is not None:
        row["parts"] = [p for p in map(_part, event.content.parts or []) if p is not None]
    if actions.state_delta:
        row["state_delta"] = _plain(dict(actions.state_delta))
    if actions.artifact_delta:
        row["artifacts"] = sorted(actions.artifact_delta)
    if actions.transfer_to_agent:
        row["transfer_to_agent"] = actions.transfer_to_agent
    if actions.escalate:
        row["escalate"] = True
    if event.long_running_tool_ids:
        row["waits_for_client"] = True
    if getattr(event, "error_code", None):
        row["error"] = event.error_code
    if actions.agent_state is not None:
        row["agent_state"] = _plain(actions.agent_state)
    if actions.end_of_agent:
        row["end_of_agent"] = True
    if actions.rewind_before_invocation_id:
        row["rewind_before"] = invocations.get(actions.rewind_before_invocation_id)
        row["artifact_versions"] = dict(actions.artifact_delta)
    return row


def _answer(turn: dict[str, Any], events: list, types: Any) -> Any:
    """The user's message that answers the pending confirmation or long-running call."""
    answered = {r.id for e in events if e.author == "user" for r in e.get_function_responses()}
    for event in reversed(events):
        for call in event.get_function_calls():
            if call.id in answered or call.id not in (event.long_running_tool_ids or set()):
                continue
            if "confirm" in turn and call.name == "adk_request_confirmation":
                response = {"confirmed": turn["confirm"]}
            elif "respond" in turn and call.name != "adk_request_confirmation":
                response = turn["respond"]
            else:
                continue
            part = types.Part(function_response=types.FunctionResponse(id=call.id, name=call.name, response=response))
            return types.Content(role="user", parts=[part])
    raise LookupError(f"no pending call to answer with {turn}")


async def transcript(app_name: str, prefix: str, package: str = APPS_PACKAGE) -> dict[str, Any]:
    from google.genai import types

    global SHOW_PATHS
    module = importlib.import_module(f"{package}.{app_name}")
    SHOW_PATHS = bool(getattr(module, "SHOW_PATHS", False))
    nodes = getattr(module, "SHOW_NODES", False)
    model = importlib.import_module(f"{APPS_PACKAGE}.rule_model")
    model.SEEN.clear()  # what this app's model saw only: one process may run many apps (--batch)
    model.REQUESTS.clear()
    seen = model.SEEN
    runners = importlib.import_module(f"{prefix}.runners")
    if hasattr(module, "app"):
        runner = runners.InMemoryRunner(app=module.app)
    else:
        runner = runners.InMemoryRunner(agent=module.root_agent, app_name="parity")
    service = runner.session_service
    await service.create_session(
        app_name=runner.app_name, user_id=USER, session_id=SESSION, state=dict(getattr(module, "INITIAL_STATE", {}))
    )
    run_kwargs = {}
    if hasattr(module, "RUN_CONFIG"):  # the app's RunConfig fields, built by each side's own class
        run_config = importlib.import_module(f"{prefix}.agents.run_config")
        run_kwargs["run_config"] = run_config.RunConfig(**module.RUN_CONFIG)
    invocations: dict[str, int] = {}
    events: list = []
    rows: list = []
    scope = dict(app_name=runner.app_name, user_id=USER, session_id=SESSION)
    rewinds = False
    for turn in module.TURNS:
        if isinstance(turn, dict) and "rewind_before" in turn:
            target = next(i for i, n in invocations.items() if n == turn["rewind_before"])
            await runner.rewind_async(user_id=USER, session_id=SESSION, rewind_before_invocation_id=target)
            marker = (await service.get_session(**scope)).events[-1]
            events.append(marker)
            rows.append(_event(marker, invocations))
            rewinds = True
            continue
        if turn == {"add_session_to_memory": True}:
            await runner.memory_service.add_session_to_memory(await service.get_session(**scope))
            continue
        resume = {}
        if isinstance(turn, dict) and "resume" in turn:  # resume invocation n (its ordinal), no message
            resume = {"invocation_id": next(i for i, n in invocations.items() if n == turn["resume"])}
            message = None
        elif isinstance(turn, str):
            message = types.Content(role="user", parts=[types.Part(text=turn)])
        elif isinstance(turn, types.Content):  # a message with more than text (an image, a file)
            message = turn
        else:
            message = _answer(turn, events, types)
        try:
            async for event in runner.run_async(user_id=USER, session_id=SESSION, new_message=message, **run_kwargs, **resume):
                if event.partial:
                    continue
                events.append(event)
                rows.append(_event(event, invocations, nodes))
        except Exception as error:  # noqa: BLE001 - a turn that raises is part of the transcript
            rows.append({"raised": type(error).__name__, "message": str(error)})
    session = await service.get_session(**scope)
    if nodes:  # and what the session holds
        result_events = [_event(e, invocations, nodes) for e in (await service.get_session(**scope)).events]
    result = {
        "events": rows,
        "state": _plain({k: session.state[k] for k in sorted(session.state)}),
        "model_saw": [_contents(contents) for contents in seen],
    }
    if nodes:
        result["session_events"] = result_events
    if rewinds:  # what get_session returns after rewinds, and the files' versions
        result["session_events"] = [_event(e, invocations) for e in session.events]
        artifacts = runner.artifact_service
        result["artifact_versions"] = {
            name: await artifacts.list_versions(filename=name, **scope)
            for name in await artifacts.list_artifact_keys(**scope)
        }
    if hasattr(module, "HEARD"):  # hooks an app records (plugins' order, say)
        result["heard"] = list(module.HEARD)
    if any("raised" in row for row in rows):  # what the log kept, the failures' records included
        result["logged"] = [_event(e, invocations) for e in session.events]
    return _ordinals(result, invocations)


def _ordinals(value: Any, invocations: dict[str, int]) -> Any:
    """``value`` with every invocation id that a runtime wrote into state (a skill's turn, say)
    shown as its ordinal, as events show theirs: the ids are random by design."""
    if isinstance(value, str) and value in invocations:
        return f"invocation {invocations[value]}"
    if isinstance(value, dict):
        return {key: _ordinals(item, invocations) for key, item in value.items()}
    if isinstance(value, list):
        return [_ordinals(item, invocations) for item in value]
    return value


def run_side(run: Any, description: str, argv: list[str] | None = None) -> int:
    """`APP --side adk|chronicle`: prints, as JSON, what `run(app, prefix)` gives on that side (on
    Chronicle's, `google.adk` imports rewritten to `runtime`). With several apps (or `--batch`), runs
    each in turn in this one process and prints `{app: what it alone would print}`: one interpreter
    start instead of one per app. A batch app that raises reads as FAILED with the exception's line,
    as a process of its own that died would."""
    import contextlib
    import traceback

    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("app", nargs="+")
    parser.add_argument("--side", choices=["adk", "chronicle"], required=True)
    parser.add_argument("--batch", action="store_true", help="print {app: output} even for one app")
    args = parser.parse_args(argv)
    if args.side == "chronicle":
        sys.meta_path.insert(0, RewritingFinder())
    prefix = "google.adk" if args.side == "adk" else "runtime"
    if len(args.app) == 1 and not args.batch:
        print(json.dumps(asyncio.run(run(args.app[0], prefix)), indent=1, sort_keys=True))
        return 0
    from tools.parity.check import FAILED

    outputs = {}
    for app in args.app:
        try:
            with contextlib.redirect_stdout(sys.stderr):  # what an app prints must not break the JSON
                outputs[app] = json.dumps(asyncio.run(run(app, prefix)), indent=1, sort_keys=True) + "\n"
        except Exception as error:  # noqa: BLE001 - one app's failure is its own row
            outputs[app] = f"{FAILED}{traceback.format_exception_only(error)[-1].strip()}\n"
    print(json.dumps(outputs))
    return 0


def main(argv: list[str] | None = None) -> int:
    return run_side(transcript, __doc__.splitlines()[0], argv)


if __name__ == "__main__":
    sys.exit(main())
