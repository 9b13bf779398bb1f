"""RetryConfig: how often, and how long apart, a failed node is tried again (ADK 2.13's fields)."""

from __future__ import annotations

import random
from typing import Any, Optional, Union

from pydantic import BaseModel, ConfigDict, field_validator

from runtime.workflow.errors import WorkflowConfigurationError


class RetryConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    max_attempts: Optional[int] = None
    """Attempts including the first; 0 or 1 means no retry; None means 5."""
    initial_delay: Optional[float] = None
    """Seconds before the first retry; None means 1.0."""
    max_delay: Optional[float] = None
    """Cap on the delay; None means 60.0."""
    backoff_factor: Optional[float] = None
    """Each delay is the previous one times this; None means 2.0."""
    jitter: Optional[float] = None
    """Randomness of the delay (0.0 for none); None means 1.0."""
    exceptions: Optional[list[Union[str, type[BaseException]]]] = None
    """Exception classes (or their names) to retry on; None means any exception."""

    @field_validator("exceptions", mode="before")
    @classmethod
    def _names(cls, value: Any) -> Any:
        if value is None:
            return None
        names = []
        for item in value:
            if isinstance(item, type) and issubclass(item, BaseException):
                names.append(item.__name__)
            elif isinstance(item, str):
                names.append(item)
            else:
                raise WorkflowConfigurationError(
                    f"RetryConfig.exceptions takes exception classes or their names, got {item!r}."
                )
        return names

    @property
    def attempts(self) -> int:
        return 5 if self.max_attempts is None else max(1, self.max_attempts)

    def retries_on(self, error: BaseException) -> bool:
        if self.exceptions is None:
            return True
        return any(cls.__name__ in self.exceptions for cls in type(error).__mro__)

    def delay(self, attempt: int) -> float:
        """Seconds to wait after failed attempt number `attempt` (1-based)."""
        initial = 1.0 if self.initial_delay is None else self.initial_delay
        factor = 2.0 if self.backoff_factor is None else self.backoff_factor
        cap = 60.0 if self.max_delay is None else self.max_delay
        jitter = 1.0 if self.jitter is None else self.jitter
        base = min(cap, initial * factor ** (attempt - 1))
        return max(0.0, base + base * jitter * random.uniform(-0.5, 0.5))
