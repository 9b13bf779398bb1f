"""How one invocation runs: streaming, the model-call budget, metadata stamped on its events."""

from __future__ import annotations

import logging
import sys
from enum import Enum
from typing import Any, Optional

from google.genai import types
from pydantic import BaseModel, ConfigDict, Field, field_validator

from domain.errors import InvalidArgumentError
from runtime.sessions.base import GetSessionConfig

logger = logging.getLogger(__name__)


class StreamingMode(Enum):
    """NONE: one event per model turn. SSE: partial chunks are yielded as partial events (never
    stored) and the aggregated turn is stored. BIDI: live audio/video sessions (`run_live`), which
    this runtime does not implement yet; `run_async` treats it as NONE."""

    NONE = None
    SSE = "sse"
    BIDI = "bidi"


class ToolThreadPoolConfig(BaseModel):
    """Runs sync function tools and function nodes on a pool of `max_workers` threads instead of
    the event loop (google-adk 2.13's switch; runtime.sync_calls)."""

    model_config = ConfigDict(extra="forbid")

    max_workers: int = Field(default=4, ge=1)


class RunConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    streaming_mode: StreamingMode = StreamingMode.NONE
    max_llm_calls: int = 500
    """Model calls allowed per invocation; exceeding it raises LlmCallsLimitExceededError.
    Zero or less means no limit (logged as a warning, as google-adk 2.13 does)."""
    get_session_config: Optional[GetSessionConfig] = None
    """Which events the Runner loads with the session (a window, for very long sessions)."""
    custom_metadata: Optional[dict[str, Any]] = None
    """Merged into the custom_metadata of every event the invocation emits (the event's own keys win)."""
    response_modalities: Optional[list[types.Modality]] = None
    """Taken as 2.13 takes it: Modality values, or their names in any case ("AUDIO", "audio")."""
    speech_config: Optional[types.SpeechConfig] = None
    output_audio_transcription: Optional[types.AudioTranscriptionConfig] = Field(
        default_factory=types.AudioTranscriptionConfig)
    input_audio_transcription: Optional[types.AudioTranscriptionConfig] = Field(
        default_factory=types.AudioTranscriptionConfig)
    tool_thread_pool_config: Optional[ToolThreadPoolConfig] = None
    """None (the default, as in google-adk 2.13): sync tools and nodes run on the event loop."""
    save_input_blobs_as_artifacts: bool = False
    support_cfc: bool = False
    extra: dict[str, Any] = Field(default_factory=dict)
    """Free-form settings for custom agents and plugins."""
    model_input_context: Optional[list[types.Content]] = None
    """Contents put before this invocation's user message in every model request of the
    invocation, and never stored: per-turn context that leaves the history as it is."""
    include_thoughts_from_other_agents: bool = False
    """ADK's switch to show other agents' thoughts to the model. Chronicle always leaves them out
    (True is refused: runtime.agents.llm_context drops them by one rule)."""
    # Live (run_live) settings, which ADK sends only to a live connection; Chronicle has no
    # live mode yet, so they are held for ADK's API.
    avatar_config: Optional[types.AvatarConfig] = None
    enable_affective_dialog: Optional[bool] = None
    translation_config: Optional[types.TranslationConfig] = None

    @field_validator("max_llm_calls", mode="after")
    @classmethod
    def validate_max_llm_calls(cls, value: int) -> int:
        """google-adk 2.13's check (its name too: ADK code calls it directly)."""
        if value >= sys.maxsize:
            raise InvalidArgumentError(f"max_llm_calls should be less than {sys.maxsize}.")
        if value <= 0:
            logger.warning("max_llm_calls is %s: no limit on the model calls of an invocation, so an agent "
                           "looping on tool calls never stops.", value)
        return value

    @field_validator("include_thoughts_from_other_agents")
    @classmethod
    def _refuse_others_thoughts(cls, value: bool) -> bool:
        if value:
            raise InvalidArgumentError(
                "RunConfig(include_thoughts_from_other_agents=True) is not supported: Chronicle "
                "never shows one agent's thoughts to another. Leave it False."
            )
        return value
