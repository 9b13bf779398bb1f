"""Bringing tracked read models up to the end of the log, with a progress bar for long work."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from tools.cli.output import Output

if TYPE_CHECKING:
    from runtime.read_models import ProjectionFollower

CHUNK = 5_000  # log positions folded between two redraws of the bar


def catch_up(
    out: Output, runners: Iterable[ProjectionFollower], label: str = "catching up", *, threshold: int = CHUNK
) -> int:
    """Folds what each runner has not seen yet; shows progress when there is more than ``threshold``."""
    folded = 0
    for runner in runners:
        end = runner.source.max_position()
        start = runner.position()
        if end - start <= threshold:
            folded += runner.catch_up()
            continue
        with out.progress(f"{label} {runner.name}", total=end - start, unit="positions") as bar:
            position = start
            step = max(min(CHUNK, (end - start) // 20), 1)
            while position < end:
                folded += runner.catch_up(upto=min(position + step, end))
                position = runner.position()
                bar.update(position - start)
        folded += runner.catch_up()  # what arrived meanwhile
    return folded


def rebuild(out: Output, runner: ProjectionFollower) -> int:
    """Drops a projection's rows and folds the whole log again, showing progress."""
    runner.storage.drop(runner.name)
    return catch_up(out, [runner], label="rebuilding", threshold=0)
