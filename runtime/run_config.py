"""How one invocation runs: streaming, the model-call budget, metadata stamped on its events."""

from __future__ import annotations

from enum import Enum
from typing import Any, Optional

from google.genai import types
from pydantic import BaseModel, ConfigDict, Field

from runtime.sessions.base import GetSessionConfig


class StreamingMode(Enum):
    """NONE: one event per model turn. SSE: partial chunks are yielded as partial events (never
    stored) and the aggregated turn is stored. BIDI: live audio/video sessions (`run_live`), which
    this runtime does not implement yet; `run_async` treats it as NONE."""

    NONE = None
    SSE = "sse"
    BIDI = "bidi"


class RunConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    streaming_mode: StreamingMode = StreamingMode.NONE
    max_llm_calls: int = 500
    """Model calls allowed per invocation; exceeding it raises LlmCallsLimitExceededError.
    Zero or less means no limit."""
    get_session_config: Optional[GetSessionConfig] = None
    """Which events the Runner loads with the session (a window, for very long sessions)."""
    custom_metadata: Optional[dict[str, Any]] = None
    """Merged into the custom_metadata of every event the invocation emits (the event's own keys win)."""
    response_modalities: Optional[list[str]] = None
    speech_config: Optional[types.SpeechConfig] = None
    output_audio_transcription: Optional[types.AudioTranscriptionConfig] = None
    input_audio_transcription: Optional[types.AudioTranscriptionConfig] = None
    save_input_blobs_as_artifacts: bool = False
    support_cfc: bool = False
    extra: dict[str, Any] = Field(default_factory=dict)
    """Free-form settings for custom agents and plugins."""
