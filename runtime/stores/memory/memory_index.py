"""The in-memory memory index: an inverted index per (app, user) ranked with BM25."""

from __future__ import annotations

import copy
import heapq
import math
import threading
from collections import Counter
from dataclasses import dataclass, field

from domain.rewind_ranges import is_hidden
from projections.memory import Folded, MemoryDoc, SourceView
from runtime.stores.memory_index import MemoryIndex
from projections.memory_text import terms

K1, B = 1.2, 0.75


@dataclass
class _Scope:
    sources: dict[str, SourceView] = field(default_factory=dict)
    docs: list[MemoryDoc] = field(default_factory=list)  # doc id = index
    keys: set[tuple[str, int]] = field(default_factory=set)
    lengths: list[int] = field(default_factory=list)
    postings: dict[str, dict[int, int]] = field(default_factory=dict)  # term -> doc id -> count
    hidden: set[int] = field(default_factory=set)
    by_source: dict[str, list[int]] = field(default_factory=dict)
    total_length: int = 0


class InMemoryIndex(MemoryIndex):
    def __init__(self, recorder: object):
        super().__init__(recorder)
        self._scopes: dict[tuple[str, str], _Scope] = {}
        self._lock = threading.Lock()

    def sources(self, app_name: str, user_id: str) -> dict[str, SourceView]:
        with self._lock:
            scope = self._scopes.get((app_name, user_id))
            return {} if scope is None else copy.deepcopy(scope.sources)

    def commit(self, app_name: str, user_id: str, source: str, before: int, view: SourceView, folded: Folded) -> bool:
        with self._lock:
            scope = self._scopes.setdefault((app_name, user_id), _Scope())
            current = scope.sources.get(source)
            if (current.position if current else 0) != before:
                return False
            for doc in self.prepared(folded, view):
                self._add(scope, doc)
            for member, session_id in folded.members:
                scope.sources.setdefault(member, SourceView(session_id))
            scope.sources[source] = copy.deepcopy(view)
            if folded.rewound:
                ranges = view.hidden_ranges()
                for doc_id in scope.by_source.get(source, ()):
                    if is_hidden(scope.docs[doc_id].position, ranges):
                        scope.hidden.add(doc_id)
                    else:
                        scope.hidden.discard(doc_id)
            return True

    def _add(self, scope: _Scope, doc: MemoryDoc) -> None:
        key = (doc.source, doc.position)
        if key in scope.keys:
            return
        scope.keys.add(key)
        doc_id = len(scope.docs)
        scope.docs.append(doc)
        counts = Counter(terms(doc.text))
        length = sum(counts.values())
        scope.lengths.append(length)
        scope.total_length += length
        for term, n in counts.items():
            scope.postings.setdefault(term, {})[doc_id] = n
        scope.by_source.setdefault(doc.source, []).append(doc_id)
        if doc.hidden:
            scope.hidden.add(doc_id)

    def search(self, app_name: str, user_id: str, query: str, limit: int) -> list[tuple[MemoryDoc, float]]:
        with self._lock:
            scope = self._scopes.get((app_name, user_id))
            if scope is None or not scope.docs:
                return []
            n = len(scope.docs)
            average = scope.total_length / n or 1.0
            scores: dict[int, float] = {}
            for term in set(terms(query)):
                posting = scope.postings.get(term)
                if not posting:
                    continue
                idf = math.log(1 + (n - len(posting) + 0.5) / (len(posting) + 0.5))
                lengths = scope.lengths
                for doc_id, tf in posting.items():
                    norm = K1 * (1 - B + B * lengths[doc_id] / average)
                    scores[doc_id] = scores.get(doc_id, 0.0) + idf * tf * (K1 + 1) / (tf + norm)
            for doc_id in scope.hidden.intersection(scores):
                del scores[doc_id]
            best = heapq.nlargest(limit, scores.items(), key=lambda item: (item[1], item[0]))  # ties: newer first
            return [(scope.docs[doc_id], score) for doc_id, score in best]

    def documents(self, app_name: str, user_id: str) -> list[MemoryDoc]:
        with self._lock:
            scope = self._scopes.get((app_name, user_id))
            if scope is None:
                return []
            docs = [
                MemoryDoc(**{**d.__dict__, "hidden": i in scope.hidden}) for i, d in enumerate(scope.docs)
            ]
        return sorted(docs, key=lambda d: (d.source, d.position))

    def clear(self) -> None:
        with self._lock:
            self._scopes.clear()
