"""google-adk 2.13's memory search (InMemoryMemoryService's), the default ranking of every store.

A memory matches a query when they share a word (lower-cased Unicode `\\w+` tokens; a token that
mixes Latin and other scripts, as Japanese text around an English word does, also counts each of
its single-script runs); a non-ASCII query word also matches inside the text. The memories
sharing the most query words come first; equal ones stay in the order they were remembered.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from functools import lru_cache
from typing import Sequence

from projections.memory import MemoryDoc

_WORD = re.compile(r"\w+")


def _lower_words(text: str) -> set[str]:
    return {word.lower() for word in _WORD.findall(unicodedata.normalize("NFC", text))}


def _is_latin(c: str) -> bool:
    if c.isascii():
        return c.isalnum() or c == "_"
    return unicodedata.name(c, "").startswith("LATIN")


def _searchable_words(text: str) -> set[str]:
    found = _lower_words(text)
    for word in list(found):
        if not word.isascii():
            found.update("".join(run) for _, run in itertools.groupby(word, _is_latin))
    return found


@lru_cache(maxsize=131_072)
def _text_words(text: str) -> tuple[frozenset[str], str]:
    """A remembered text's words and its lowered form. Texts never change, and each search reads
    every one of the user's: kept between searches (bounded), they are split once."""
    return frozenset(_searchable_words(text)), unicodedata.normalize("NFC", text).lower()


def matching_words(query_words: set[str], text: str) -> int:
    """How many of the query's words the text has (0: no match)."""
    in_text, lowered = _text_words(text)
    if not in_text:
        return 0
    return sum(1 for w in query_words if w in in_text or (not w.isascii() and w in lowered))


def rank(docs: Sequence[MemoryDoc], query: str, limit: int) -> list[tuple[MemoryDoc, float]]:
    """The `limit` docs sharing the most words with `query`, in `docs`' order among equals."""
    query_words = _lower_words(query)
    scored = [(doc, matching_words(query_words, " ".join(p["text"] for p in doc.content["parts"]))) for doc in docs]
    matched = [(doc, float(score)) for doc, score in scored if score]
    matched.sort(key=lambda item: -item[1])  # stable: ties keep the order remembered
    return matched[:limit]
