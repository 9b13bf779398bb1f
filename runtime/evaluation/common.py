"""The base of the eval file models: camelCase on the wire, as google-adk writes `.evalset.json`."""

from __future__ import annotations

import pydantic
from domain.errors import ChronicleError
from pydantic import alias_generators


class EvalBaseModel(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(
        alias_generator=alias_generators.to_camel,
        populate_by_name=True,
        extra="forbid",
        arbitrary_types_allowed=True,
    )


class EvalNotFoundError(ChronicleError, ValueError):
    """An eval set, case or result that is not there."""
