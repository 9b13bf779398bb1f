"""google-adk's conformance convention: replaying and recording a conversation's model calls.

ADK's conformance client (`adk conformance test`) sends each turn of a recorded conversation to
/run_sse with a `state_delta` key:

* `_adk_replay_config: {dir, user_message_index, streaming_mode}` — answer the turn from
  `dir/generated-recordings.yaml` (`generated-recordings-sse.yaml` when streaming_mode is "sse"):
  each agent's n-th model call in that turn gets the n-th recorded responses of that agent once
  its request is the recorded one (runtime.server.replay_requests), and each tool call must match
  the recorded call (name and arguments); the tool runs (but an AgentTool) and the model gets the
  recorded result. A call the recording does not have, or a different one, fails the turn
  (`ReplayVerificationError`, with the difference).
* `_adk_recordings_config: {dir, user_message_index, streaming_mode}` — run the turn for real and
  write its model and tool calls into that file, in the same format (the turn's earlier
  recordings are replaced, other turns' kept).

The file holds `recordings:`, a list of `{user_message_index, agent_name, llm_recording:
{llm_request, llm_responses}}` or `{…, tool_recording: {tool_call, tool_response}}`, snake_case
YAML as ADK writes it. Both are plugins, inert without their key, that a server takes as ADK's
conformance guide says: `--extra_plugins google.adk.cli.plugins.replay_plugin.ReplayPlugin
google.adk.cli.plugins.recordings_plugin.RecordingsPlugin` (or this module's names). They are
not on by default: a plugin with a `before_model_callback` makes every model call copy the
request's contents. This is Chronicle's own implementation of google-adk 2.13's behaviour: like
ADK, replay swaps the model for the invocation (runtime.models.model_override), so the request it
checks is the final one, after every callback.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, AsyncGenerator, Optional

from domain.errors import ChronicleError
from runtime.models import model_override
from runtime.models.base_llm import BaseLlm
from runtime.models.llm_response import LlmResponse
from runtime.plugins.base_plugin import BasePlugin
from runtime.server import replay_requests

REPLAY_KEY, RECORD_KEY = "_adk_replay_config", "_adk_recordings_config"


class ReplayVerificationError(ChronicleError):
    """The run asked for a model or tool call the recording does not have, or a different one."""


class ReplayConfigError(ChronicleError):
    """The replay or recording config, or its file, is missing or malformed."""


def recordings_file(config: dict[str, Any]) -> Path:
    if not isinstance(config, dict) or not config.get("dir") or config.get("user_message_index") is None:
        raise ReplayConfigError("The config needs dir and user_message_index.")
    mode = config.get("streaming_mode", "none")
    if mode not in ("none", "sse"):
        raise ReplayConfigError(f"Unsupported streaming_mode {mode!r}; use none or sse.")
    return Path(config["dir"]) / ("generated-recordings-sse.yaml" if mode == "sse" else "generated-recordings.yaml")


def read_recordings(path: Path) -> list[dict[str, Any]]:
    import yaml

    if not path.is_file():
        return []
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as e:
        raise ReplayConfigError(f"{path} is not valid YAML: {e}") from None
    recordings = data.get("recordings") if isinstance(data, dict) else None
    if not isinstance(recordings, list):
        raise ReplayConfigError(f"{path} has no `recordings:` list.")
    return recordings


class _Turn:
    """One invocation's replay: the recordings of its turn, and how far each agent got."""

    def __init__(self, recordings: list[dict[str, Any]], index: int):
        self.mine = [r for r in recordings if r.get("user_message_index") == index]
        self.index = index
        self.used: dict[tuple[str, str], int] = {}

    def next(self, kind: str, agent: str) -> dict[str, Any]:
        found = [r[kind] for r in self.mine if r.get("agent_name") == agent and r.get(kind)]
        at = self.used.get((kind, agent), 0)
        if at >= len(found):
            what = "model" if kind == "llm_recording" else "tool"
            raise ReplayVerificationError(
                f"Agent {agent!r} made more {what} calls than recorded for user message {self.index}: "
                f"{len(found)} recorded, this is call {at + 1}."
            )
        self.used[(kind, agent)] = at + 1
        return found[at]


class ReplayPlugin(BasePlugin):
    """Answers each model call from the recording, after checking that the request is the recorded
    one (runtime.server.replay_requests: ADK's fields and normalisations); a different request fails
    the turn with the difference. Every tool but an AgentTool really runs (so transfer_to_agent,
    exit_loop and state writes take effect), and then the recorded response is returned, as
    google-adk's ReplayPlugin does."""

    def __init__(self, name: str = "adk_replay"):
        super().__init__(name=name)
        self._turns: dict[str, _Turn] = {}

    async def before_run_callback(self, *, invocation_context: Any) -> None:
        config = invocation_context.session.state.get(REPLAY_KEY)
        if not config:
            return
        path = recordings_file(config)
        if not path.is_file():
            raise ReplayConfigError(f"Recordings file not found: {path}")
        turn = _Turn(read_recordings(path), config["user_message_index"])
        invocation_id = invocation_context.invocation_id
        self._turns[invocation_id] = turn
        model_override.override_models(invocation_id, lambda agent_name: _ReplayModel(turn=turn, agent_name=agent_name))

    async def before_tool_callback(self, *, tool: Any, tool_args: dict[str, Any], tool_context: Any) -> Optional[dict]:
        turn = self._turns.get(tool_context.invocation_id)
        if turn is None:
            return None
        agent = tool_context.agent_name
        recorded = turn.next("tool_recording", agent)
        call = recorded.get("tool_call") or {}
        if call.get("name") != tool.name or (call.get("args") or {}) != tool_args:
            raise ReplayVerificationError(
                f"Agent {agent!r} called {tool.name}({tool_args}); the recording has "
                f"{call.get('name')}({call.get('args') or {}})."
            )
        from runtime.tools.agent_tool import AgentTool

        if not isinstance(tool, AgentTool):  # an AgentTool's own model calls are not recorded
            await tool.run_async(args=tool_args, tool_context=tool_context)
        response = recorded.get("tool_response")
        if response is None:
            raise ReplayConfigError(f"A tool recording of agent {agent!r} has no tool_response.")
        return response.get("response") or {}

    async def after_run_callback(self, *, invocation_context: Any) -> None:
        self._turns.pop(invocation_context.invocation_id, None)
        model_override.clear_override(invocation_context.invocation_id)

    async def on_run_error_callback(self, *, invocation_context: Any, error: Exception) -> None:
        await self.after_run_callback(invocation_context=invocation_context)  # a failed turn leaves nothing behind


class _ReplayModel(BaseLlm):
    """The model of one agent in one replayed turn: the n-th call gets the n-th recording."""

    model: str = "adk-conformance-replay"
    turn: Any
    agent_name: str

    async def generate_content_async(self, llm_request: Any, stream: bool = False) -> AsyncGenerator[LlmResponse, None]:
        recording = self.turn.next("llm_recording", self.agent_name)
        call = self.turn.used[("llm_recording", self.agent_name)]
        diff = replay_requests.difference(
            replay_requests.recorded_request(recording.get("llm_request") or {}), replay_requests.comparable(llm_request)
        )
        if diff:
            raise ReplayVerificationError(
                f"LLM request mismatch in turn {self.turn.index} for agent {self.agent_name!r} (call {call}):\n{diff}"
            )
        # google-adk 2.13 writes llm_responses (a list); earlier versions one llm_response.
        responses = recording.get("llm_responses") or ([recording["llm_response"]] if recording.get("llm_response") else [])
        if not responses:
            raise ReplayConfigError(f"A model recording of agent {self.agent_name!r} has no response.")
        fields = LlmResponse.model_fields
        for response in responses:
            yield LlmResponse.model_validate({k: v for k, v in response.items() if k in fields})


class RecordingsPlugin(BasePlugin):
    def __init__(self, name: str = "adk_recordings"):
        super().__init__(name=name)
        self._taken: dict[str, list[dict[str, Any]]] = {}
        self._calls: dict[tuple[str, str], tuple[Any, list[dict[str, Any]]]] = {}
        self._lock = threading.Lock()

    async def before_run_callback(self, *, invocation_context: Any) -> None:
        config = invocation_context.session.state.get(RECORD_KEY)
        if config:
            recordings_file(config)  # checked now, before the turn runs
            self._taken[invocation_context.invocation_id] = []

    async def before_model_callback(self, *, callback_context: Any, llm_request: Any) -> None:
        if callback_context.invocation_id in self._taken:
            # Kept by reference and written after the call: the request as the model got it.
            self._calls[(callback_context.invocation_id, callback_context.agent_name)] = (llm_request, [])

    async def after_model_callback(self, *, callback_context: Any, llm_response: Any) -> None:
        taken = self._taken.get(callback_context.invocation_id)
        key = (callback_context.invocation_id, callback_context.agent_name)
        if taken is None or key not in self._calls:
            return None
        request, responses = self._calls[key]
        responses.append(llm_response.model_dump(mode="json", exclude_none=True))
        if not llm_response.partial:
            del self._calls[key]
            taken.append({"agent_name": callback_context.agent_name, "llm_recording": {
                "llm_request": _request_json(request), "llm_responses": responses,
            }})
        return None

    async def after_tool_callback(self, *, tool: Any, tool_args: dict[str, Any], tool_context: Any, result: dict) -> None:
        taken = self._taken.get(tool_context.invocation_id)
        if taken is not None:
            taken.append({"agent_name": tool_context.agent_name, "tool_recording": {
                "tool_call": {"id": tool_context.function_call_id, "args": tool_args, "name": tool.name},
                # As the function response carries it: a result that is not a mapping is {"result": ...}.
                "tool_response": {"id": tool_context.function_call_id, "name": tool.name,
                                  "response": result if isinstance(result, dict) else {"result": result}},
            }})
        return None

    async def on_run_error_callback(self, *, invocation_context: Any, error: Exception) -> None:
        invocation_id = invocation_context.invocation_id
        self._taken.pop(invocation_id, None)  # a failed turn is not recorded
        for key in [k for k in self._calls if k[0] == invocation_id]:
            del self._calls[key]

    async def after_run_callback(self, *, invocation_context: Any) -> None:
        taken = self._taken.pop(invocation_context.invocation_id, None)
        if taken is None:
            return
        import yaml

        config = invocation_context.session.state[RECORD_KEY]
        index = config["user_message_index"]
        path = recordings_file(config)
        with self._lock:
            kept = [r for r in read_recordings(path) if r.get("user_message_index") != index]
            kept += [{"user_message_index": index, **r} for r in taken]
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(yaml.safe_dump({"recordings": kept}, sort_keys=False, allow_unicode=True), encoding="utf-8")


def _request_json(request: Any) -> dict[str, Any]:
    """The request as google-adk's RecordingsPlugin writes it (what replay compares is all there)."""
    return request.model_dump(mode="json", exclude_none=True, exclude_defaults=True)


# What ADK's conformance guide tells users to pass to --extra_plugins, and Chronicle's equivalent.
ADK_PLUGIN_NAMES = {
    "google.adk.cli.plugins.replay_plugin.ReplayPlugin": f"{__name__}.ReplayPlugin",
    "google.adk.cli.plugins.recordings_plugin.RecordingsPlugin": f"{__name__}.RecordingsPlugin",
}
