"""BaseExampleProvider: chooses few-shot examples for the user's query."""

from __future__ import annotations

import abc

from runtime.examples.example import Example


class BaseExampleProvider(abc.ABC):
    @abc.abstractmethod
    def get_examples(self, query: str) -> list[Example]:
        """The examples to show the model for ``query``."""
