"""Google Cloud services that google-adk 2.13 names and Chronicle does not call: the classes are
at ADK's paths, so a ported app imports, and refuse when built or used, saying what to use
instead (docs/adk.md)."""

from __future__ import annotations

from typing import Any

from domain.errors import ChronicleError


class CloudServiceUnavailableError(ChronicleError, NotImplementedError):
    """The code asked for a Google Cloud service, which Chronicle does not call."""


class CloudOnly:
    """Base of a cloud-backed class: building one raises CloudServiceUnavailableError."""

    service = ""  # the cloud service, e.g. "Google Cloud Storage"
    instead = ""  # what to use with Chronicle

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        raise CloudServiceUnavailableError(
            f"{cls.__name__} stores its data in {cls.service}, which Chronicle does not call. {cls.instead}"
        )
