"""The model requests an ADK app sends, on google-adk 2.13 and on Chronicle, compared field by field.

    python -m tools.parity.requests APP --side adk         # the app's requests, as JSON, on google-adk
    python -m tools.parity.requests APP --side chronicle   # the same on Chronicle (`google.adk` rewritten)

The apps are `tools/parity/request_apps/*` (agents of many shapes, each asked a few turns) and the
parity apps of `tools/parity/apps/`: all of them use the same fake model (`rule_model.RuleModel`, an
ADK-idiom BaseLlm), which keeps a snapshot of every request it is sent. A snapshot is the request as
ADK's conformance replay compares it (`LlmRequest.model_dump(exclude_none=True, exclude_defaults=True)`
without `live_connect_config`, `config.http_options` and `config.labels`), kept whole: no schema or
description is normalised away, so a docstring's whitespace, a parameter's description or an instruction's
word differs where ADK's own check would let it pass. Plus the names of the tools the request carries
(`tools_dict`), and which of the app's models it went to.
"""

from __future__ import annotations

import base64
import difflib
import enum
import json
import os
import pkgutil
import re
import sys
from typing import Any

from tools.parity.check import FAILED, transcript as output_of

REQUEST_APPS = "tools.parity.request_apps"
PARITY_APPS = "tools.parity.apps"
# Left out as ADK's conformance replay leaves them out: they vary per run or per deployment.
EXCLUDED = {"live_connect_config": True, "config": {"http_options": True, "labels": True}}
RUNTIME_ID = re.compile(r"\badk-[0-9a-f-]{36}\b")  # a call id the runtime made up: random by design
# When something happened (a memory's time): the moment is random by design, its form is compared.
WHEN = re.compile(r"\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?")
# An event's id (a remembered event's, in load_memory's answer): a uuid4, random by design.
EVENT_ID = re.compile(r'"id": "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"')


def snapshot(label: str, llm_request: Any) -> dict[str, Any]:
    """The request as sent, JSON-ready, taken when the model is called (callbacks may change it later)."""
    dumped = llm_request.model_dump(exclude_none=True, exclude_defaults=True, exclude=EXCLUDED)
    dumped.pop("tools_dict", None)
    text = json.dumps(dumped, default=_jsonable, sort_keys=True)
    text = EVENT_ID.sub('"id": "<id>"', WHEN.sub("<time>", RUNTIME_ID.sub("adk-<id>", text)))
    return {"model": label, "request": json.loads(text),
            "tools": sorted(llm_request.tools_dict)}


def _jsonable(value: Any) -> Any:
    if isinstance(value, type) and hasattr(value, "model_json_schema"):  # an output schema's class
        return {"pydantic_model": value.__name__, "json_schema": value.model_json_schema()}
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    return repr(value)


def app_names() -> list[str]:
    """Every app whose requests are compared: the request apps, then the parity apps."""
    from tools.parity import apps, request_apps

    names = [m.name for m in pkgutil.iter_modules(request_apps.__path__) if not m.name.startswith("_")]
    return sorted(names) + sorted(m.name for m in pkgutil.iter_modules(apps.__path__) if m.name != "rule_model")


def package_of(app: str) -> str:
    from tools.parity import request_apps

    return REQUEST_APPS if os.path.exists(os.path.join(request_apps.__path__[0], app + ".py")) else PARITY_APPS


async def requests(app: str, prefix: str) -> dict[str, Any]:
    import importlib

    from tools.parity.transcript import transcript

    error = None
    try:
        await transcript(app, prefix, package_of(app))
    except Exception as raised:  # noqa: BLE001 - the requests up to the failure are still compared
        error = f"{type(raised).__name__}: {raised}"
    sent = importlib.import_module(f"{PARITY_APPS}.rule_model").REQUESTS
    return {"requests": sent, "error": error}


def side_output(python: str, app: str, side: str) -> str:
    """The app's requests on one side as text, or the error that stopped the process."""
    return output_of(python, app, side, module="tools.parity.requests")


def differences(adk: str, chronicle: str, *, limit: int = 80) -> str:
    """Where Chronicle's requests differ from google-adk's, as a unified diff ('' when the same)."""
    if adk == chronicle and not adk.startswith(FAILED):
        return ""
    lines = difflib.unified_diff(adk.splitlines(), chronicle.splitlines(), "google-adk 2.13", "chronicle",
                                 n=4, lineterm="")
    return "\n".join(list(lines)[:limit]) or f"{adk}{chronicle}"


def main(argv: list[str] | None = None) -> int:
    from tools.parity.transcript import run_side

    return run_side(requests, __doc__.splitlines()[0], argv)


if __name__ == "__main__":
    sys.exit(main())
