"""How the command line prints: colour and tables on a terminal, plain text when piped, JSON on request.

* ``Output.table`` aligns columns; on a terminal the header is bold and underlined with a rule,
  when piped it is a plain header line (easy to ``grep``, ``awk`` or ``column``).
* Colour only on a terminal, and never with ``NO_COLOR`` set or ``--color never``.
* ``Output.progress`` draws a bar on stderr when stderr is a terminal; piped, it stays silent, so
  scripts see only the result.
* ``Output.json`` prints one JSON document (``--json``), the stable interface for scripts.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from typing import Any, Iterable, Sequence, TextIO

from runtime.operations.times import utc  # noqa: F401 - the command line's one time format

_STYLES = {
    "bold": "1", "dim": "2", "italic": "3", "underline": "4", "strike": "9",
    "red": "31", "green": "32", "yellow": "33", "blue": "34", "magenta": "35", "cyan": "36", "grey": "90",
}


def wants_colour(stream: TextIO, mode: str = "auto") -> bool:
    if mode == "always":
        return True
    if mode == "never" or os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    return _isatty(stream)


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def plural(n: int, noun: str, many: str | None = None) -> str:
    """ "1 session", "2 sessions" (and "1,200 sessions")."""
    return f"{n:,} {noun if n == 1 else many or noun + 's'}"


def short(value: Any, width: int) -> str:
    """A value on one line, cut to ``width`` characters with an ellipsis."""
    text = value if isinstance(value, str) else json.dumps(value, default=str, ensure_ascii=False)
    text = " ".join(text.split())
    if width <= 1 or len(text) <= width:
        return text
    return text[: width - 1] + "…"


def to_json(value: Any) -> str:
    return json.dumps(value, indent=2, default=_json_default, ensure_ascii=False)


def _json_default(value: Any) -> Any:
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json", exclude_none=True)
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    if isinstance(value, bytes):
        return value.hex()
    return str(value)


def reader_gone(stream: TextIO) -> None:
    """The reader of the output left (``chronicle verify --json | head``): what is left to print
    goes nowhere, and the command still finishes with its own exit code (4 for a broken chain),
    without the interpreter's complaint about a broken pipe at exit."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())
    except (OSError, ValueError, AttributeError):
        pass  # not a real file (a test's StringIO): nothing to redirect


class Output:
    """Where a command prints, and how (see the module docstring)."""

    def __init__(
        self,
        *,
        json_mode: bool = False,
        colour: str = "auto",
        stream: TextIO | None = None,
        err: TextIO | None = None,
    ):
        self.stream = stream or sys.stdout
        self.err = err or sys.stderr
        self.json_mode = json_mode
        self.tty = _isatty(self.stream)
        self.colour = wants_colour(self.stream, colour)
        self.err_colour = wants_colour(self.err, colour)

    # -- text ---------------------------------------------------------------------------

    @property
    def width(self) -> int:
        if not self.tty:
            return 120
        return max(60, shutil.get_terminal_size((120, 24)).columns)

    def style(self, text: str, *styles: str) -> str:
        if not self.colour or not styles:
            return text
        codes = ";".join(_STYLES[s] for s in styles)
        return f"\x1b[{codes}m{text}\x1b[0m"

    def line(self, text: str = "") -> None:
        try:
            print(text, file=self.stream)
        except BrokenPipeError:
            reader_gone(self.stream)

    def _flush(self) -> None:
        try:
            self.stream.flush()  # what was said before a remark comes before it
        except (OSError, ValueError):
            pass

    def note(self, text: str) -> None:
        """A remark for people (hints, summaries) that scripts need not parse: on stderr."""
        self._flush()
        print(self.style(text, "dim") if self.err_colour else text, file=self.err)

    def warn(self, text: str) -> None:
        self._flush()
        prefix = "\x1b[33mwarning:\x1b[0m" if self.err_colour else "warning:"
        print(f"{prefix} {text}", file=self.err)

    def error(self, text: str) -> None:
        self._flush()
        prefix = "\x1b[1;31mchronicle:\x1b[0m" if self.err_colour else "chronicle:"
        print(f"{prefix} {text}", file=self.err)

    def json(self, value: Any) -> None:
        try:
            print(to_json(value), file=self.stream)
        except BrokenPipeError:
            reader_gone(self.stream)

    # -- tables -------------------------------------------------------------------------

    def table(
        self,
        headers: Sequence[str],
        rows: Iterable[Sequence[Any]],
        *,
        title: str | None = None,
        right: Iterable[int] = (),
        max_width: int = 48,
    ) -> None:
        """Aligned columns; ``right`` names the columns (by index) aligned right (numbers)."""
        cells = [[short("" if c is None else c, max_width) for c in row] for row in rows]
        if title:
            self.line(self.style(title, "bold") if self.colour else title)
        widths = [len(h) for h in headers]
        for row in cells:
            for i, cell in enumerate(row):
                widths[i] = max(widths[i], len(cell))
        right = set(right)

        def render(row: Sequence[str]) -> str:
            out = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths))]
            return "  ".join(out).rstrip()

        self.line(self.style(render(headers), "bold") if self.colour else render(headers))
        if self.tty:
            self.line(self.style("  ".join("─" * w for w in widths), "dim"))
        for row in cells:
            self.line(render(row))

    # -- progress -----------------------------------------------------------------------

    def progress(self, label: str, total: int | None = None, unit: str = "") -> Progress:
        return Progress(self, label, total, unit)


class Progress:
    """A progress bar on stderr (only when stderr is a terminal)::

        with out.progress("rebuild analytics", total=n, unit="events") as bar:
            bar.update(done)
    """

    def __init__(self, out: Output, label: str, total: int | None, unit: str):
        self.out, self.label, self.total, self.unit = out, label, total, unit
        self.done = 0
        self.visible = _isatty(out.err)
        self._started = time.monotonic()
        self._drawn = 0.0

    def __enter__(self) -> Progress:
        self._draw(force=True)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.visible:
            self._draw(force=True)
            self.out.err.write("\n")
            self.out.err.flush()

    def advance(self, n: int = 1) -> None:
        self.update(self.done + n)

    def update(self, done: int, total: int | None = None) -> None:
        self.done = done
        if total is not None:
            self.total = total
        self._draw()

    def _draw(self, force: bool = False) -> None:
        if not self.visible:
            return
        now = time.monotonic()
        if not force and now - self._drawn < 0.1:
            return
        self._drawn = now
        elapsed = max(now - self._started, 1e-9)
        rate = self.done / elapsed
        unit = f" {self.unit}" if self.unit else ""
        if self.total:
            fraction = min(self.done / self.total, 1.0)
            filled = int(fraction * 28)
            bar = "█" * filled + "░" * (28 - filled)
            text = f"{self.label} {bar} {fraction:4.0%} {self.done:,}/{self.total:,}{unit} {rate:,.0f}/s"
        else:
            text = f"{self.label} {self.done:,}{unit} {rate:,.0f}/s"
        self.out.err.write("\r\x1b[2K" + text)
        self.out.err.flush()
