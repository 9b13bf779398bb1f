"""The store's checkpoint log: one ``Sealed`` event per checkpoint, hash-chained like every log.

The checkpoints live in the store, so the database's owner can delete them: their signatures
stop forgery, not removal. That is why they are also exported (``chronicle seal --export``) to a
place the owner cannot write, and why ``verify --key`` reads such a copy beside the store's.

A sealer never loads this log as an aggregate (a store sealed every minute for a year holds
half a million checkpoints): it reads the last stored event and appends the next one after it
(``next_events``), and the version of that append is its optimistic-concurrency guard.
"""

from __future__ import annotations

import uuid
from typing import Any, Optional

from domain import chain as hash_chain
from domain.chained import ChainedAggregate

CHECKPOINT_LOG_ID = uuid.UUID("0c4e6f1a-93d2-4b7e-a5f8-2e1d7c9b3a60")


class CheckpointLog(ChainedAggregate):
    TOPIC = "chronicle:CheckpointLog"

    class Created(ChainedAggregate.Created):
        TOPIC = "chronicle:CheckpointLog.Created"
        created_time: float

    class Chained(ChainedAggregate.Chained):
        TOPIC = "chronicle:CheckpointLog.Chained"

    class Sealed(Chained):
        TOPIC = "chronicle:CheckpointLog.Sealed"
        checkpoint: dict[str, Any]  # domain.checkpoint.Checkpoint.to_json()

    def __init__(self, created_time: float):
        pass


def next_events(last: Optional[tuple[int, str]], checkpoint: dict[str, Any], now: float) -> list[Any]:
    """The events that record ``checkpoint`` after the log's last stored event, given as
    (version, chain link), or None when the log does not exist yet (then its genesis first)."""
    if last is None:
        log = CheckpointLog._start(CheckpointLog.Created, CHECKPOINT_LOG_ID, created_time=now)
        log._append(CheckpointLog.Sealed, checkpoint=checkpoint)
        return list(log.collect_events())
    version, previous_link = last
    digest = hash_chain.digest(CheckpointLog.Sealed.TOPIC, {"checkpoint": checkpoint})
    return [CheckpointLog.Sealed(  # type: ignore[call-arg]
        originator_id=CHECKPOINT_LOG_ID, originator_version=version + 1, timestamp=CheckpointLog.Sealed.create_timestamp(),
        digest=digest, chain=hash_chain.link(previous_link, version + 1, digest), checkpoint=checkpoint,
    )]
