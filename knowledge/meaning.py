"""Similarity of meaning as arrays: the TF-IDF similarity of knowledge/vectors.py and the
sentence embeddings' of knowledge/semantic.py, blended, one float per entry.

knowledge/vectors.py computes the TF-IDF similarity with Python loops over its postings
and returns a dict per entry; that loop and the dicts cost ~5 ms of every question, more
than everything but the embedding itself. Here the same postings are numpy arrays, so a
question's dot products are one `bincount`: the products and their sums are float64 in
the order the query's terms come, as the loop adds them, so every score is the same to
the last bit (tests/test_knowledge_meaning.py compares the two on every question set).

The module is loaded with numpy at the first search (knowledge.search), not whenever the
catalogue is read, as knowledge/semantic.py is.
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from knowledge.semantic import SemanticIndex
from knowledge.vectors import PARAPHRASE_SHARE, SUBWORD_ONLY, Index

Scores = npt.NDArray[np.float64]


class Postings:
    """A vectors.Index's postings as arrays: per feature, the vector numbers that have it
    and their weights; per word feature, the entries whose text has it."""

    def __init__(self, index: Index) -> None:
        self.index = index
        self.count = len(index.ids)
        self.slots = len(index.owner)
        # vectors 0..count-1 are the bodies, then each entry's phrasings (index.owner says whose)
        self.phrasing_owner = np.array(index.owner[self.count :], dtype=np.int64)
        self.position = {entry_id: at for at, entry_id in enumerate(index.ids)}
        lists: dict[str, tuple[list[int], list[float]]] = {}
        vectors = [*index.bodies, *(p for phrasings in index.phrasings for p in phrasings)]
        for slot, vector in enumerate(vectors):
            for term, weight in vector.items():
                slots, weights = lists.setdefault(term, ([], []))
                slots.append(slot)
                weights.append(weight)
        self.postings = {
            term: (np.array(slots, dtype=np.int64), np.array(weights, dtype=np.float64))
            for term, (slots, weights) in lists.items()
        }
        holders: dict[str, list[int]] = {}
        for number, words in enumerate(index.words):
            for word in words:
                holders.setdefault(word, []).append(number)
        self.word_entries = {word: np.array(numbers, dtype=np.int64) for word, numbers in holders.items()}

    def scores(self, text: str) -> Scores | None:
        """vectors.Index.similarities(text) as an array in the order of the index's ids, or
        None when the text has no feature the entries have (the dict is then empty)."""
        query = self.index.vector(text)
        if not query:
            return None
        found = [(weight, self.postings[term]) for term, weight in query.items() if term in self.postings]
        dots: Scores
        if found:
            slots = np.concatenate([posting[0] for _, posting in found])
            products = np.concatenate([weight * posting[1] for weight, posting in found])
            dots = np.bincount(slots, weights=products, minlength=self.slots).astype(np.float64, copy=False)
        else:
            dots = np.zeros(self.slots)
        best = np.zeros(self.count)
        np.maximum.at(best, self.phrasing_owner, dots[self.count :])
        scores: Scores = PARAPHRASE_SHARE * best + (1 - PARAPHRASE_SHARE) * dots[: self.count]
        shares_a_word = np.zeros(self.count, dtype=bool)
        for term in query:
            if term in self.word_entries:  # only word features ("w:nvlink") are keys
                shares_a_word[self.word_entries[term]] = True
        scores[~shares_a_word] *= SUBWORD_ONLY
        return scores


_postings: weakref.WeakKeyDictionary[Index, Postings] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def postings(index: Index) -> Postings:
    """The arrays of an index, made at its first search (a few ms) and kept while it lives."""
    with _lock:
        if index not in _postings:
            _postings[index] = Postings(index)
        return _postings[index]


@dataclass(frozen=True)
class Meaning:
    """Each entry's similarity of meaning to a question, in the order of `ids` (the
    entries' order in the database, which both indexes share)."""

    ids: list[str]
    scores: Scores
    position: dict[str, int]

    def get(self, entry_id: str) -> float:
        """The entry's similarity, 0 for an entry the indexes do not have."""
        at = self.position.get(entry_id)
        return 0.0 if at is None else float(self.scores[at])

    def best(self, count: int) -> list[str]:
        """The ids of the `count` most similar entries, best first; ties in the ids' order
        (as a stable sort of the dict by value, reversed, has them)."""
        order = np.argsort(-self.scores, kind="stable")[:count]
        return [self.ids[at] for at in order.tolist()]


def blend(index: Index, semantic_index: SemanticIndex | None, text: str, embedding_share: float) -> Meaning:
    """TF-IDF similarity, blended with the embeddings' at `embedding_share` when there is a
    semantic index: what knowledge.search ranks by, as its dicts computed it."""
    arrays = postings(index)
    tfidf = arrays.scores(text)
    if semantic_index is None:
        if tfidf is None:
            return Meaning(ids=[], scores=np.zeros(0), position={})
        return Meaning(ids=index.ids, scores=tfidf, position=arrays.position)
    ids = semantic_index.ids
    known = tfidf if tfidf is not None and index.ids == ids else _aligned(index, ids, tfidf)
    embedded = semantic_index.scores(text).astype(np.float64)
    scores: Scores = (1 - embedding_share) * known + embedding_share * embedded
    return Meaning(ids=ids, scores=scores, position=semantic_index.position)


def _aligned(index: Index, ids: list[str], tfidf: Scores | None) -> Scores:
    """The TF-IDF scores in the order of other ids (0 where the index lacks an entry)."""
    if tfidf is None:
        return np.zeros(len(ids))
    at = {entry_id: n for n, entry_id in enumerate(index.ids)}
    return np.array([float(tfidf[at[i]]) if i in at else 0.0 for i in ids], dtype=np.float64)
