"""Similarity of meaning by sentence embeddings (core/embedding.py), the neural
counterpart of the TF-IDF similarity in knowledge/vectors.py, scored the same way: each
entry by a blend of its best paraphrase match and its whole text.

Embedding the ~1,400 phrasings and bodies takes tens of seconds on 2 shared cores, so
the vectors are written once beside the database (`<db>.minilm.npz`, keyed by a hash of
the texts) and every later process only loads them; a query is then one forward pass
(~10-25 ms) and a matrix-vector product.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np

from core import embedding
from core.embedding import MiniLM
from knowledge.vectors import PARAPHRASE_SHARE, EntryText


class SemanticIndex:
    """Embeddings of every entry's phrasings and body, and the model for queries."""

    def __init__(self, model: MiniLM, entries: list[EntryText], cache: Path | None = None) -> None:
        self.model = model
        self.ids = [e.id for e in entries]
        texts = [" ".join((e.phrasings[0], e.body)) if e.phrasings else e.body for e in entries]
        self.owner = np.array([n for n, e in enumerate(entries) for _ in e.phrasings], dtype=np.int64)
        texts += [p for e in entries for p in e.phrasings]
        digest = hashlib.sha256("\x1f".join(texts).encode()).hexdigest()
        vectors = None
        if cache is not None and cache.is_file():
            stored = np.load(cache)
            if str(stored["digest"]) == digest:
                vectors = stored["vectors"]
        if vectors is None:
            vectors = model.encode(texts)
            if cache is not None:
                tmp = cache.with_suffix(".tmp.npz")
                np.savez(tmp, vectors=vectors, digest=np.array(digest))
                tmp.replace(cache)
        self.bodies = vectors[: len(entries)]
        self.phrasings = vectors[len(entries) :]

    def similarities(self, text: str) -> dict[str, float]:
        """Every entry's cosine similarity to text (clipped at 0), as in vectors.Index."""
        query = self.model.encode([text])[0]
        body = np.clip(self.bodies @ query, 0.0, None)
        best = np.zeros(len(self.ids), dtype=np.float32)
        np.maximum.at(best, self.owner, np.clip(self.phrasings @ query, 0.0, None))
        scores = PARAPHRASE_SHARE * best + (1 - PARAPHRASE_SHARE) * body
        return {entry_id: float(score) for entry_id, score in zip(self.ids, scores, strict=True)}


_cache: dict[str, SemanticIndex] = {}
_lock = threading.Lock()


def index_for(key: str, model_dir: Path, entries: Callable[[], list[EntryText]], cache: Path | None) -> SemanticIndex:
    """The index cached under key (a database's fingerprint), built at first use: the
    entries are read from the database only then, not on every search."""
    with _lock:
        if key not in _cache:
            _cache[key] = SemanticIndex(embedding.shared(model_dir), entries(), cache)
        return _cache[key]
