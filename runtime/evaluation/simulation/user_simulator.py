"""A user simulator plays the user of an eval case: each turn it is shown the conversation so far and
answers with the next user message, or says why there is none (google-adk 2.13's interface)."""

from __future__ import annotations

import enum
from abc import ABC, abstractmethod
from typing import Any, Optional

from google.genai import types as genai_types
from pydantic import BaseModel, ConfigDict, Field, ValidationError, alias_generators, model_validator

from ..common import EvalBaseModel


class BaseUserSimulatorConfig(BaseModel):
    """Each kind of simulator has a config subclass with its own `type` tag (`"llm_backed"`, ...)."""

    model_config = ConfigDict(alias_generator=alias_generators.to_camel, populate_by_name=True, extra="allow")

    type: Optional[str] = None


class Status(enum.Enum):
    SUCCESS = "success"
    TURN_LIMIT_REACHED = "turn_limit_reached"
    STOP_SIGNAL_DETECTED = "stop_signal_detected"
    NO_MESSAGE_GENERATED = "no_message_generated"


class NextUserMessage(EvalBaseModel):
    status: Status
    user_message: Optional[genai_types.Content] = None

    @model_validator(mode="after")
    def _message_iff_success(self) -> "NextUserMessage":
        if (self.status == Status.SUCCESS) == (self.user_message is None):
            raise ValueError("A user_message should be provided if and only if the status is SUCCESS")
        return self


class UserSimulator(ABC):
    """One instance per eval case: it may keep count of the turns it played."""

    def __init__(self, config: BaseUserSimulatorConfig, config_type: type[BaseUserSimulatorConfig]):
        try:
            self._config = config_type.model_validate(config.model_dump())
        except ValidationError as e:
            raise ValueError(f"Expect config of type `{config_type}`.") from e

    @abstractmethod
    async def get_next_user_message(self, events: list[Any]) -> NextUserMessage:
        """The next message, given every event of the conversation so far (the user's included)."""

    def get_simulation_evaluator(self):
        raise NotImplementedError()


_SIMULATOR_BY_CONFIG_TYPE: dict[type[BaseUserSimulatorConfig], type[UserSimulator]] = {}
_CONFIG_BY_TAG: dict[str, type[BaseUserSimulatorConfig]] = {}
DEFAULT_TYPE = "llm_backed"  # a config without `type` (written before it existed) is this kind


def register_user_simulator(config_type: type[BaseUserSimulatorConfig], simulator_type: type[UserSimulator]) -> None:
    """Adds a kind of simulator: an `EvalConfig` carrying a config of `config_type` gets `simulator_type`."""
    _SIMULATOR_BY_CONFIG_TYPE[config_type] = simulator_type
    tag = config_type.model_fields["type"].default
    if tag:
        _CONFIG_BY_TAG[tag] = config_type


def simulator_config(value: Any) -> Optional[BaseUserSimulatorConfig]:
    """A config as `EvalConfig` holds it: a JSON object becomes the registered class its `type` names."""
    if value is None or isinstance(value, BaseUserSimulatorConfig):
        return value
    if not isinstance(value, dict):
        raise ValueError("user_simulator_config must be an object.")
    tag = value.get("type") or DEFAULT_TYPE
    if tag not in _CONFIG_BY_TAG:
        raise ValueError(f"Unknown user simulator type {tag!r}; registered: {sorted(_CONFIG_BY_TAG)}.")
    return _CONFIG_BY_TAG[tag].model_validate({**value, "type": tag})
