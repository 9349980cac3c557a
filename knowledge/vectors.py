"""Ranking by meaning without a neural model: TF-IDF vectors of word stems and character
n-grams, compared by cosine similarity.

bm25 over the words finds entries that share the question's words; it cannot tell that
"how fast do GPUs talk inside the box" is about NVLink, or that "regular Ethernet slows
training" is the all-reduce penalty, unless the words overlap. Character n-grams inside
words ("gpudirect" ~ "gpu direct", "optimised" ~ "optimized", "serving" ~ "serve") and
each entry's question paraphrases (the `questions` field of a source entry, written the
way customers ask) close most of that gap. Each entry is represented twice: by its
strongest paraphrase match (title, aliases, questions: what the entry answers) and by
its whole text (what it says); the similarity is a blend of the two.

Sentence embeddings of all-MiniLM-L6-v2 (minilm/embedding.py, numpy, no PyTorch;
knowledge/semantic.py) are blended in (knowledge.search.EMBEDDING_SHARE, docs/embeddings.md).
With one or two paraphrases per entry they gained one or two questions per blind set, too
little for a search five times slower; once every entry had paraphrases and the base 260
entries, they gain on every set (576 -> 586 of 610 questions), so the share is 0.4. These
vectors stay the base: built from the database in a few milliseconds at first use, a
query costs well under a millisecond, and they carry the search alone on a machine
without the model.
"""

from __future__ import annotations

import math
import re
import threading
from collections import Counter
from dataclasses import dataclass

from understanding.query import is_stopword

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
CHAR_NGRAMS = (3, 4, 5)
#: weight of the best paraphrase match against the whole-text match
PARAPHRASE_SHARE = 0.65
#: an entry that shares no whole word with the question, only letter sequences, counts
#: this much ("zettabyte" is not about the "ToS byte")
SUBWORD_ONLY = 0.5

Vector = dict[str, float]


def features(text: str) -> Counter[str]:
    """Word features ("w:nvlink") and character n-grams of each word padded with spaces
    (" nvl", "link "), of every non-stopword word."""
    counts: Counter[str] = Counter()
    for word in _WORD.findall(text.lower()):
        if is_stopword(word):
            continue
        counts[f"w:{word}"] += 1
        padded = f" {word} "
        for n in CHAR_NGRAMS:
            for start in range(max(len(padded) - n + 1, 1)):
                counts[padded[start : start + n]] += 1
    return counts


def _normalise(vector: Vector) -> Vector:
    norm = math.sqrt(sum(v * v for v in vector.values()))
    return {k: v / norm for k, v in vector.items()} if norm else {}


@dataclass(frozen=True)
class EntryText:
    """What one entry is compared on: the phrasings it answers and its whole text."""

    id: str
    phrasings: tuple[str, ...]
    body: str


class Index:
    """TF-IDF vectors of every entry's phrasings and body, with the idf of the corpus."""

    def __init__(self, entries: list[EntryText]) -> None:
        documents = [features(" ".join((*e.phrasings, e.body))) for e in entries]
        frequency: Counter[str] = Counter()
        for doc in documents:
            frequency.update(doc.keys())
        total = len(documents) or 1
        self.idf = {term: math.log((1 + total) / (1 + df)) + 1.0 for term, df in frequency.items()}
        self.ids = [e.id for e in entries]
        self.phrasings = [[self.vector(p) for p in e.phrasings] for e in entries]
        self.bodies = [self.vector(" ".join((*e.phrasings, e.body))) for e in entries]
        self.words = [frozenset(k for k in body if k.startswith("w:")) for body in self.bodies]
        # inverted index: feature -> (vector number, weight); vectors 0..len(entries)-1 are
        # the bodies, then each entry's phrasings (`self.owner` says whose)
        self.owner: list[int] = list(range(len(entries)))
        vectors: list[Vector] = list(self.bodies)
        for number, phrasings in enumerate(self.phrasings):
            self.owner += [number] * len(phrasings)
            vectors += phrasings
        self.postings: dict[str, list[tuple[int, float]]] = {}
        for slot, vector in enumerate(vectors):
            for term, weight in vector.items():
                self.postings.setdefault(term, []).append((slot, weight))

    def vector(self, text: str) -> Vector:
        """The normalised TF-IDF vector of text (sublinear term frequency)."""
        counts = features(text)
        return _normalise(
            {term: (1.0 + math.log(n)) * self.idf[term] for term, n in counts.items() if term in self.idf}
        )

    def similarities(self, text: str) -> dict[str, float]:
        """Every entry's similarity to text, 0..1."""
        query = self.vector(text)
        if not query:
            return {}
        query_words = {k for k in query if k.startswith("w:")}
        dots = [0.0] * len(self.owner)
        for term, weight in query.items():
            for slot, entry_weight in self.postings.get(term, ()):
                dots[slot] += weight * entry_weight
        count = len(self.ids)
        best = [0.0] * count
        for slot in range(count, len(self.owner)):
            entry = self.owner[slot]
            best[entry] = max(best[entry], dots[slot])
        scores = {}
        for number, entry_id in enumerate(self.ids):
            score = PARAPHRASE_SHARE * best[number] + (1 - PARAPHRASE_SHARE) * dots[number]
            scores[entry_id] = score if query_words & self.words[number] else score * SUBWORD_ONLY
        return scores


_cache: dict[str, Index] = {}
_lock = threading.Lock()


def index_for(key: str, load: list[EntryText] | None = None) -> Index | None:
    """The index cached under key (a database's fingerprint), built from `load` when given
    and not cached yet."""
    with _lock:
        if key not in _cache and load is not None:
            _cache[key] = Index(load)
        return _cache.get(key)
