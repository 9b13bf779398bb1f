"""`Aclosing` at google-adk 2.13's path: closes an async generator when the block ends, so a
generator left early still runs its cleanup (the standard library's contextlib.aclosing)."""

from contextlib import aclosing as Aclosing

__all__ = ["Aclosing"]
