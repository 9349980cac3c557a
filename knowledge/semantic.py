"""Similarity of meaning by sentence embeddings (minilm/embedding.py), the neural
counterpart of the TF-IDF similarity in knowledge/vectors.py, scored the same way: each
entry by a blend of its best paraphrase match and its whole text.

Embedding the ~1,700 phrasings and bodies takes about half a minute on 2 shared cores,
so the vectors are written once to the cache directory, in a file named by a hash of the
texts (`minilm-<hash>.npz`: any database built from the same sources shares it, a test's
temporary one included), by `python -m knowledge build` when the model is installed,
else at the first search; every later process only loads them. A query is then one
forward pass (~10-15 ms) and a matrix-vector product.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np
import numpy.typing as npt

from core import progress
from knowledge.vectors import PARAPHRASE_SHARE, EntryText
from minilm import embedding
from minilm.embedding import MiniLM


class SemanticIndex:
    """Embeddings of every entry's phrasings and body, and the model for queries."""

    def __init__(self, model: MiniLM, entries: list[EntryText], cache_dir: Path | None = None) -> None:
        self.model = model
        self.ids = [e.id for e in entries]
        self.position = {entry_id: at for at, entry_id in enumerate(self.ids)}
        texts = [" ".join((e.phrasings[0], e.body)) if e.phrasings else e.body for e in entries]
        self.owner = np.array([n for n, e in enumerate(entries) for _ in e.phrasings], dtype=np.int64)
        texts += [p for e in entries for p in e.phrasings]
        digest = hashlib.sha256("\x1f".join(texts).encode()).hexdigest()
        cache = cache_dir / f"minilm-{digest[:20]}.npz" if cache_dir is not None else None
        self.cache = cache
        vectors = None
        if cache is not None and cache.is_file():
            stored = np.load(cache)
            if str(stored["digest"]) == digest:
                vectors = stored["vectors"]
        if vectors is None:
            vectors = model.encode(texts, progress=progress.advance)
            if cache is not None:
                cache.parent.mkdir(parents=True, exist_ok=True)
                tmp = cache.with_suffix(f".{os.getpid()}.tmp.npz")
                np.savez(tmp, vectors=vectors, digest=np.array(digest))
                tmp.replace(cache)
        self.bodies = vectors[: len(entries)]
        self.phrasings = vectors[len(entries) :]

    def similarities(self, text: str) -> dict[str, float]:
        """Every entry's cosine similarity to text (clipped at 0), as in vectors.Index."""
        return dict(zip(self.ids, self.scores(text).tolist(), strict=True))

    def scores(self, text: str) -> npt.NDArray[np.float32]:
        """`similarities` as an array in the order of `ids` (knowledge.meaning blends it)."""
        query = self.model.encode([text])[0]
        body = np.clip(self.bodies @ query, 0.0, None)
        best = np.zeros(len(self.ids), dtype=np.float32)
        np.maximum.at(best, self.owner, np.clip(self.phrasings @ query, 0.0, None))
        scores: npt.NDArray[np.float32] = PARAPHRASE_SHARE * best + (1 - PARAPHRASE_SHARE) * body
        return scores


_cache: dict[str, SemanticIndex] = {}
_lock = threading.Lock()


def index_for(
    key: str, model_dir: Path, entries: Callable[[], list[EntryText]], cache_dir: Path | None
) -> SemanticIndex:
    """The index cached under key (a database's fingerprint), built at first use: the
    entries are read from the database only then, not on every search."""
    with _lock:
        if key not in _cache:
            _cache[key] = SemanticIndex(embedding.shared(model_dir), entries(), cache_dir)
        return _cache[key]
