"""ADK-compatible event models: what agents yield and the log records."""

from __future__ import annotations

import logging
import time
import uuid
from typing import Annotated, Any, Optional, Union

from google.genai import types
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    WrapSerializer,
    field_serializer,
)
from pydantic.alias_generators import to_camel
from pydantic_core import PydanticSerializationError, to_jsonable_python

from domain.errors import InvalidArgumentError
from domain.json_content import PlainContent
from domain.ui_widget import UiWidget
from domain.tool_confirmation import ToolConfirmation
from domain.validation import check_event_id, check_storable

logger = logging.getLogger("chronicle.events")

_MODEL_CONFIG = ConfigDict(
    alias_generator=to_camel,
    populate_by_name=True,
    extra="forbid",
    arbitrary_types_allowed=True,
    ser_json_bytes="base64",
    val_json_bytes="base64",
)


def as_content(message: Any) -> types.Content:
    """A user message from what ADK's ``message=`` takes: a Content, a Part, text, or a list of those."""
    if isinstance(message, types.Content):
        return message
    items = message if isinstance(message, list) else [message]
    parts = [types.Part(text=item) if isinstance(item, str) else types.Part.model_validate(item) for item in items]
    return types.Content(role="user", parts=parts)


def _jsonable_or_repr(value: Any, handler: SerializerFunctionWrapHandler) -> Any:
    # As ADK: a value JSON cannot hold (a callable, say) is written as its repr, with a warning,
    # rather than failing the whole event.
    try:
        return handler(value)
    except Exception:  # noqa: BLE001 - pydantic raises several kinds here
        logger.warning("Some values in an event's actions are not JSON; they are written as their repr.")
        return handler(to_jsonable_python(value, serialize_unknown=True))


JsonOrRepr = WrapSerializer(_jsonable_or_repr)


class EventCompaction(BaseModel):
    """A summary that stands in, in the LLM context, for the events it covers."""

    model_config = _MODEL_CONFIG
    start_timestamp: float
    end_timestamp: float
    compacted_content: types.Content
    event_ids: list[str] = Field(default_factory=list)


class EventActions(BaseModel):
    model_config = _MODEL_CONFIG

    skip_summarization: Optional[bool] = None
    state_delta: Annotated[dict[str, Any], JsonOrRepr] = Field(default_factory=dict)
    artifact_delta: dict[str, int] = Field(default_factory=dict)
    transfer_to_agent: Optional[str] = None
    transfer_reason: Optional[str] = None
    escalate: Optional[bool] = None
    requested_auth_configs: dict[str, Any] = Field(default_factory=dict)
    requested_tool_confirmations: dict[str, ToolConfirmation] = Field(default_factory=dict)
    compaction: Optional[EventCompaction] = None
    end_of_agent: Optional[bool] = None
    agent_state: Annotated[Optional[dict[str, Any]], JsonOrRepr] = None
    rewind_before_invocation_id: Optional[str] = None
    route: Optional[Union[bool, int, str, list[Union[bool, int, str]]]] = None
    # ADK 2.13's, stored so that stock ADK's events round-trip (runtime/adk_bridge); JSON as given.
    render_ui_widgets: Optional[list[UiWidget]] = None
    set_model_response: Optional[Any] = None


class NodeInfo(BaseModel):
    """Where in a workflow an event comes from (ADK 2.13's node metadata)."""

    model_config = _MODEL_CONFIG

    path: str = ""  # e.g. "workflow/step@1"
    output_for: Optional[list[str]] = None
    message_as_output: Optional[bool] = None

    @property
    def name(self) -> str:
        """The node's name: the last path segment without its "@run" suffix."""
        return self.path.rsplit("/", 1)[-1].split("@", 1)[0]

    @property
    def run_id(self) -> str:
        last = self.path.rsplit("/", 1)[-1]
        return last.split("@", 1)[1] if "@" in last else ""


class Event(BaseModel):
    """One step of a conversation: a message, a model turn, a tool call or result."""

    model_config = _MODEL_CONFIG

    id: str = ""
    invocation_id: str = ""
    author: str = ""
    content: Annotated[Optional[types.Content], PlainContent] = None  # from JSON: plain shapes fast
    actions: EventActions = Field(default_factory=EventActions)
    partial: Optional[bool] = None
    turn_complete: Optional[bool] = None
    interrupted: Optional[bool] = None
    finish_reason: Optional[types.FinishReason] = None
    branch: Optional[str] = None
    timestamp: float = Field(default_factory=time.time)
    long_running_tool_ids: Optional[set[str]] = None
    error_code: Optional[str] = None
    error_message: Optional[str] = None
    usage_metadata: Optional[types.GenerateContentResponseUsageMetadata] = None
    custom_metadata: Optional[dict[str, Any]] = None
    grounding_metadata: Optional[types.GroundingMetadata] = None
    citation_metadata: Optional[types.CitationMetadata] = None
    input_transcription: Optional[types.Transcription] = None
    output_transcription: Optional[types.Transcription] = None
    live_session_id: Optional[str] = None
    output: Any = None  # a workflow node's output value
    node_info: NodeInfo = Field(default_factory=NodeInfo)
    isolation_scope: Optional[str] = None
    # The rest of ADK 2.13's LlmResponse fields, stored so that stock ADK's events round-trip
    # (runtime/adk_bridge, import-adk). Chronicle only keeps them, so they are plain JSON: their
    # google-genai types differ between genai 2 (which google-adk pins) and 3.
    model_version: Optional[str] = None
    turn_complete_reason: Optional[str] = None
    interaction_status: Optional[str] = None
    interaction_id: Optional[str] = None
    environment_id: Optional[str] = None
    avg_logprobs: Optional[float] = None
    logprobs_result: Optional[dict[str, Any]] = None
    cache_metadata: Optional[dict[str, Any]] = None
    live_session_resumption_update: Optional[dict[str, Any]] = None
    go_away: Optional[dict[str, Any]] = None
    voice_activity: Optional[dict[str, Any]] = None

    @field_serializer("long_running_tool_ids", when_used="unless-none")
    def _sorted_ids(self, value: set[str]) -> list[str]:
        return sorted(value)  # a set has no order of its own: keep stored payloads (and digests) stable

    def __init__(self, /, **data: Any) -> None:
        if data.keys() & _SHORTCUTS:
            _apply_shortcuts(data, type(self).model_fields)  # ADK's shortcuts: message=, state=, route=, node_path=
        super().__init__(**data)

    @classmethod
    def model_validate(cls, obj: Any, **kwargs: Any) -> Any:
        """Takes the shortcuts in a dict too, as ADK's Event does (without changing the dict)."""
        if isinstance(obj, dict) and obj.keys() & _SHORTCUTS:
            obj = dict(obj)
            _apply_shortcuts(obj, cls.model_fields)
        return super().model_validate(obj, **kwargs)

    # Marks __init__ as only forwarding to validation (pydantic's RootModel does the same), so
    # reading the log (model_validate_json) skips it and keeps the fast JSON path.
    __init__.__pydantic_base_init__ = True  # type: ignore[attr-defined]

    @property
    def message(self) -> Any:
        """ADK's alias of ``content`` (a subclass's own ``message`` field, if it declares one)."""
        if "message" in type(self).model_fields:
            return self.__dict__.get("message")
        return self.content

    @message.setter
    def message(self, value: Any) -> None:
        if "message" in type(self).model_fields:
            self.__pydantic_validator__.validate_assignment(self, "message", value)
        else:
            self.content = None if value is None else as_content(value)

    @property
    def node_name(self) -> str:
        if self.actions.agent_state or self.actions.end_of_agent:
            return ""
        return self.node_info.name

    def model_post_init(self, __context: Any) -> None:
        if not self.id:
            self.id = Event.new_id()

    @staticmethod
    def new_id() -> str:
        return str(uuid.uuid4())

    def is_final_response(self) -> bool:
        """True when this event ends the agent's turn from the user's point of view."""
        if self.actions.skip_summarization or self.long_running_tool_ids:
            return True
        if self.error_code and not self.partial and not self.get_function_calls():
            return True  # a failed model call ends the turn, as in ADK 2.13
        return (
            not self.get_function_calls()
            and not self.get_function_responses()
            and not self.partial
            and not self.has_trailing_code_execution_result()
        )

    def get_function_calls(self) -> list[types.FunctionCall]:
        if not self.content or not self.content.parts:
            return []
        return [p.function_call for p in self.content.parts if p.function_call]

    def get_function_responses(self) -> list[types.FunctionResponse]:
        if not self.content or not self.content.parts:
            return []
        return [p.function_response for p in self.content.parts if p.function_response]

    def has_trailing_code_execution_result(self) -> bool:
        if self.content and self.content.parts:
            return self.content.parts[-1].code_execution_result is not None
        return False

    def text(self) -> str:
        """The text parts joined, for printing timelines."""
        if not self.content or not self.content.parts:
            return ""
        return "".join(p.text for p in self.content.parts if p.text and not p.thought)

    def to_json_dict(self) -> dict[str, Any]:
        """The stored form: JSON-ready, snake_case, without unset fields."""
        return self._dump(False)

    def check_shape(self) -> None:
        """Refuses an event whose parts are not the models and flags its fields declare: one built
        with ``model_construct`` (which validates nothing: ``actions={...}``, ``actions=None``) or
        changed after it was built. Checked before an append reads any of them."""
        for name, kind, wanted in _MODEL_FIELDS:
            value = getattr(self, name, None)
            if not isinstance(value, kind) and (value is not None or name != "content"):
                raise InvalidArgumentError(
                    f"Event {getattr(self, 'id', '?')!r} cannot be stored: its {name} must be {wanted}, "
                    f"got {type(value).__name__} (built with model_construct, or changed after it was built). "
                    "Build events with Event(...), which checks them."
                )
        for name in ("partial", "turn_complete", "interrupted"):
            value = getattr(self, name, None)
            if value is not None and type(value) is not bool:
                raise InvalidArgumentError(f"An event's {name} must be true, false or None, got {value!r}.")

    def checked_json_dict(self) -> dict[str, Any]:
        """The stored form of the event as it is now, checked before anything is written: pydantic
        does not check assignments, so an event changed after it was built (``e.author = None``,
        ``e.content = "hi"``) could otherwise be stored and fail every later read. Raises
        InvalidArgumentError for a field of the wrong type, a blank or malformed id and a value
        beyond the limits every store keeps (``domain.validation.check_storable``)."""
        self.check_shape()
        return self.checked_dump()

    def checked_dump(self) -> dict[str, Any]:
        """``checked_json_dict`` of an event that has just passed ``check_shape`` (an append checks
        the shape first, before it reads ``partial`` or ``actions``, and not twice)."""
        check_event_id(self.id)
        check_event_id(self.invocation_id, "invocation id", blank=True)
        for name in ("author", "branch"):
            value = getattr(self, name)
            if not isinstance(value, str) and (value is not None or name == "author"):
                raise InvalidArgumentError(f"An event's {name} must be text, got {value!r}.")
        if type(self.timestamp) not in (float, int):
            raise InvalidArgumentError(f"An event's timestamp must be a number of seconds, got {self.timestamp!r}.")
        if self.long_running_tool_ids is not None and not all(type(i) is str for i in self.long_running_tool_ids):
            raise InvalidArgumentError("An event's long_running_tool_ids must be a set of text ids.")
        if isinstance(self.actions, EventActions) and isinstance(self.actions.route, list) and None in self.actions.route:
            raise InvalidArgumentError("An event's actions.route holds None; routes are booleans, numbers or text.")
        check_storable(self, f"Event {self.id!r}", models=True, frame=EVENT_FRAME)
        if self.custom_metadata:  # plain JSON, as a store gives it back (not sets, bytes or tuples)
            check_storable(self.custom_metadata, f"Event {self.id!r}.custom_metadata", frame=1)
        try:
            return self._dump("error")
        except PydanticSerializationError as e:
            reason = " ".join(str(e).split())[:300]
            raise InvalidArgumentError(
                f"Event {self.id!r} cannot be stored: a field holds a value of the wrong type, set after "
                f"the event was built ({reason}). Build a new Event instead of changing one."
            ) from None

    def _dump(self, warnings: Any) -> dict[str, Any]:
        # A node_info never set is not written, so events without one are stored, and hashed,
        # exactly as before the field existed.
        # What model_dump calls, without its keyword handling (the class's own: a subclass's fields too).
        data = self.__pydantic_serializer__.to_python(self, mode="json", exclude_none=True, warnings=warnings)
        if not self.node_info.__pydantic_fields_set__:
            del data["node_info"]  # (cheaper than model_dump's exclude=)
        return data


_MODEL_FIELDS = (("actions", EventActions, "an EventActions"), ("node_info", NodeInfo, "a NodeInfo"),
                 ("content", types.Content, "a types.Content or None"))


# The levels an event's own structure puts around the values it carries (event, content, parts, a
# part, its function call, the call's arguments): the event's JSON may nest MAX_DEPTH + EVENT_FRAME
# levels, so a value nests at least MAX_DEPTH levels wherever it sits (a few more where it sits
# shallower, such as custom_metadata).
EVENT_FRAME = 6


_SHORTCUTS = frozenset({"message", "state", "route", "node_path"})


def _apply_shortcuts(data: dict[str, Any], fields: dict[str, Any]) -> None:
    """message= (content), state= (actions.state_delta), route= (actions.route),
    node_path= (node_info.path), in place; a subclass's own field of one of these names stays."""
    message, state, route, node_path = (
        None if k in fields else data.pop(k, None) for k in ("message", "state", "route", "node_path"))
    if message is not None:
        if data.get("content") is not None:
            raise InvalidArgumentError("message= and content= are mutually exclusive: give an Event one of them.")
        data["content"] = as_content(message)
    if state is not None or route is not None:
        actions = data.get("actions")
        if isinstance(actions, EventActions):
            actions = actions.model_dump(exclude_unset=True)
        actions = dict(actions or {})
        if state is not None:
            actions["state_delta"] = state
        if route is not None:
            actions["route"] = route
        data["actions"] = actions
    if node_path is not None:
        info = data.get("node_info")
        info = dict(info.model_dump(exclude_unset=True) if isinstance(info, NodeInfo) else info or {})
        data["node_info"] = {**info, "path": node_path}
