"""Reading the knowledge database: full-text search, one entry, one subject.

>>> import knowledge
>>> knowledge.search("what is PFC")[0].title          # doctest: +SKIP
'PFC (Priority Flow Control)'
>>> [e["id"] for e in knowledge.subject("faq")]      # doctest: +SKIP
['faq-do-i-need-infiniband', 'faq-infiniband-vs-ethernet-cost', 'faq-ports-per-server']
"""

from __future__ import annotations

import functools
import json
import logging
import re
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from core.settings import settings
from knowledge import store, vectors
from knowledge.build import resolve_db_path
from understanding.query import (
    MAX_INPUT_CHARS,
    answer_fit,
    boost,
    content_words,
    expansion_fit,
    expansions_asked,
    fts_query,
    intents,
    is_query_word,
    title_fit,
    wanted_answers,
)

if TYPE_CHECKING:  # numpy (minilm/embedding.py) loads with the first search, not with the package
    from knowledge import meaning, semantic

MAX_LIMIT = 50
logger = logging.getLogger(__name__)


#: the kinds of an answer worked out for the question rather than stored: a sum with its
#: own numbers (knowledge.formulas, knowledge.units) and counts from a design sized for it
#: (advisor.answers.stated)
CALCULATION = "calculation"
SIZED = "sized"
COMPUTED_KINDS = frozenset({CALCULATION, SIZED})


class Entry(BaseModel):
    """One knowledge entry as search returns it."""

    id: str = Field(description="Stable kebab-case id; grep the sources for it.", examples=["glossary-pfc"])
    subject: str = Field(description="Source file / subject.", examples=["glossary"])
    kind: str = Field(description="Table the entry lives in.", examples=["glossary"])
    title: str = Field(description="What the entry is about.", examples=["PFC (Priority Flow Control)"])
    text: str = Field(
        description="The entry's answer or definition.",
        examples=[
            "Priority Flow Control pauses one traffic class on a link when the receiver's buffer fills, so RDMA frames are not dropped."
        ],
    )
    source: str = Field(
        description="Where the fact comes from.", examples=['Seed guide: "Priority Flow Control (PFC)"']
    )
    note: str = Field(default="", description="Where the guide and the vendor differ, if they do.", examples=[""])
    score: float = Field(
        default=0.0,
        description="Relevance (bm25 blended with similarity of meaning), higher is better; 0 outside search.",
        examples=[0.82],
    )

    @classmethod
    def computed(
        cls, entry_id: str, title: str, text: str, source: str, *, subject: str, kind: str = CALCULATION
    ) -> Entry:
        """An answer worked out for this question, ranked above anything the search finds."""
        return cls(id=entry_id, subject=subject, kind=kind, title=title, text=text, source=source, score=1.0)


class UnknownSubject(KeyError):
    """No such subject; the message lists the valid ones."""

    def __init__(self, name: str, valid: list[str]):
        self.name = name
        self.valid = valid
        super().__init__(name)

    def __str__(self) -> str:
        return f"unknown knowledge subject {self.name!r}; valid subjects: {', '.join(self.valid)}"


_ENTRY_COLUMNS = ["id", "subject", "kind", "title", "text", "source", "note"]
# What sqlite-utils' `table.search()` runs, written once: that method introspects the
# tables on every call, which costs more than the search itself.
_SEARCH_SQL = f"""
select {", ".join(f"entries.{c}" for c in _ENTRY_COLUMNS)}, entries_fts.rank as rank
from entries join entries_fts on entries.rowid = entries_fts.rowid
where entries_fts match :query
order by entries_fts.rank
limit :limit
"""


#: share of the meaning similarity (knowledge/vectors.py) in the blended relevance; the
#: rest is bm25, scaled so the best candidate has 1
MEANING_SHARE = 0.6
#: candidates the meaning similarity adds besides bm25's (questions that share no word),
#: when at least this similar: below it, shared letter sequences are chance ("zettabyte")
MEANING_CANDIDATES = 10
MIN_MEANING = 0.25
#: share of the sentence-embedding similarity (knowledge/semantic.py) inside the meaning
#: similarity; 0 keeps the TF-IDF similarity alone and never loads the model. Measured
#: on the six question sets (610 questions; docs/embeddings.md): 576 right at 0, 586 at
#: 0.4 to 0.6, gaining on every blind set, for ~12 ms a query and ~200 MB a process.
EMBEDDING_SHARE = 0.4
_LETTER = re.compile(r"[^\W\d_]")
_ROWS_SQL = f"select {', '.join(_ENTRY_COLUMNS)} from entries where id in (select value from json_each(:ids))"


def search(text: str, limit: int = 5, *, db_path: str | Path | None = None) -> list[Entry]:
    """The entries that best answer `text`, best first (at most `limit`, capped at 50).

    Candidates come from bm25 full-text search (weighted columns: title, aliases and
    question paraphrases above the body) and from similarity of meaning; each is scored
    by a blend of the two, times its kind's boost (search_terms.yaml: by the question's intent too,
    so definitions lead only questions that ask for one), times a penalty when it gives
    no answer of the kind asked for (a port count, a distance). Any input is safe:
    punctuation and FTS syntax are stripped, and a question with no searchable word
    returns an empty list.
    """
    limit = max(0, min(int(limit), MAX_LIMIT))
    query = fts_query(text)
    # no letter at all ("1.1.1...", "2048 / 64"): numbers alone name no entry, and the
    # meaning model would be run on the whole string for nothing (issue 23's hostile input)
    if not query or not limit or not _LETTER.search(str(text)):
        return []
    db = store.connection(db_path)
    try:
        # bm25 candidates (rank is negative, lower is better)
        rows = db.execute(_SEARCH_SQL, {"query": query, "limit": max(4 * limit, 20)}).fetchall()
    except sqlite3.OperationalError as exc:  # a query the tokenizer still rejects
        if "fts5" in str(exc).lower():
            return []
        raise
    bm25 = {row[0]: -row[-1] for row in rows}
    entries = {row[0]: Entry(**dict(zip(_ENTRY_COLUMNS, row[:-1], strict=True))) for row in rows}
    meaning = _meaning(db, db_path, str(text)[:MAX_INPUT_CHARS])
    extra = [i for i in meaning.best(MEANING_CANDIDATES) if i not in entries and meaning.get(i) >= MIN_MEANING]
    if extra:
        for row in db.execute(_ROWS_SQL, {"ids": json.dumps(extra)}).fetchall():
            entries[row[0]] = Entry(**dict(zip(_ENTRY_COLUMNS, row, strict=True)))
    best_bm25 = max(bm25.values(), default=0.0) or 1.0
    asked = intents(text)
    wanted = wanted_answers(text)
    words = content_words(text)
    expanded = expansions_asked(str(text))
    for entry_id, hit in entries.items():
        relevance = (1 - MEANING_SHARE) * bm25.get(entry_id, 0.0) / best_bm25 + MEANING_SHARE * meaning.get(entry_id)
        fit = answer_fit(wanted, hit.title, hit.text) * title_fit(words, hit.title) * expansion_fit(expanded, hit.title)
        hit.score = round(relevance * boost(hit.kind, asked) * fit, 4)
    hits = sorted(entries.values(), key=lambda hit: hit.score, reverse=True)
    return [hit for hit in hits if hit.score > 0][:limit]


def _meaning(db: Any, db_path: str | Path | None, text: str) -> meaning.Meaning:
    """Each entry's similarity of meaning to text: TF-IDF, blended with the sentence
    embeddings' when EMBEDDING_SHARE is set (knowledge.meaning, as arrays)."""
    from knowledge import meaning  # numpy with it: at the first search, not when the catalogue is read

    key = _db_key(db_path)
    index = vectors.index_for(key)
    if index is None:
        index = vectors.index_for(key, _entry_texts(db))
    assert index is not None
    return meaning.blend(index, _semantic_index(key, db), text, EMBEDDING_SHARE)


def _semantic_index(key: str, db: Any) -> semantic.SemanticIndex | None:
    """The sentence-embedding index of the database, or None when the share is 0 or the
    model is not installed (`make embedding-model`): the search then ranks by TF-IDF
    alone, as before the model, and says so once in the log."""
    if EMBEDDING_SHARE <= 0 or not _model_installed(settings.embedding_model_dir):
        return None
    from knowledge import semantic  # numpy with it: at the first search, not when the catalogue is read

    return semantic.index_for(key, settings.embedding_model_dir, lambda: _entry_texts(db), settings.embedding_cache_dir)


@functools.cache
def _model_installed(model_dir: Path) -> bool:
    """Whether the model's files are there, looked at once per process (not on every
    search), with the reason logged when they are not."""
    from minilm import embedding

    try:
        embedding.shared(model_dir)
    except FileNotFoundError as exc:
        logger.warning("knowledge search without sentence embeddings: %s", exc)
        return False
    return True


def embed_entries(*, db_path: str | Path | None = None) -> Path | None:
    """Compute (or find) the sentence vectors of the database's entries now, so no search
    waits for them; the cache file, or None without the model."""
    built = _semantic_index(_db_key(db_path), store.connection(db_path))
    return built.cache if built is not None else None


def _db_key(db_path: str | Path | None) -> str:
    """A database's fingerprint (path, inode, modification time): a rebuilt database gets
    new indexes."""
    path = resolve_db_path(db_path).resolve()
    stat = path.stat()
    return f"{path}:{stat.st_ino}:{stat.st_mtime_ns}"


def _entry_texts(db: Any) -> list[vectors.EntryText]:
    rows = db.execute("select id, title, aliases, questions, text from entries order by rowid").fetchall()
    return [
        vectors.EntryText(
            id=row[0],
            phrasings=tuple(p for p in [row[1], *row[2].split(" | "), *row[3].split(" | ")] if p.strip()),
            body=row[4],
        )
        for row in rows
    ]


_ACRONYM = re.compile(r"\b[A-Z][A-Z0-9]{1,9}\b")
_ANY_ENTRY_SQL = "select 1 from entries_fts where entries_fts match :term limit 1"


def uncovered_acronyms(text: str, *, db_path: str | Path | None = None) -> list[str]:
    """The acronyms in `text` ("MTU", "DAC", "UFM") that no entry mentions.

    An acronym is almost always what a question is about, so one the knowledge base
    never mentions means the best entry can only be the closest, not the answer. Plain
    words are not checked: "bother" or "someone" missing from the guide says nothing.
    """
    return _unmentioned(_ACRONYM.findall(str(text or "")[:MAX_INPUT_CHARS]), db_path)


_CONTENT_WORD = re.compile(r"\b[^\W\d_]{3,}\b")


def unmentioned_words(text: str, *, db_path: str | Path | None = None) -> list[str]:
    """The content words of `text` that no entry mentions ("wedding", "cake", "Fortnite").

    Alone they say little (a typo is one), but beside a single word the domain shares
    with everyday language ("tiers", "latency") they tell the everyday sense from the
    domain's: understanding.understand's `unfamiliar` fact."""
    return _unmentioned(_CONTENT_WORD.findall(str(text or "")[:MAX_INPUT_CHARS]), db_path)


def _unmentioned(words: list[str], db_path: str | Path | None) -> list[str]:
    db = store.connection(db_path)
    missing: list[str] = []
    for word in dict.fromkeys(words):
        term = word.lower()
        if is_query_word(term) or db.execute(_ANY_ENTRY_SQL, {"term": f'"{term}"'}).fetchone():
            continue
        missing.append(word)
    return missing


def entry(entry_id: str, *, db_path: str | Path | None = None) -> Entry | None:
    """The entry with this id, or None."""
    db = store.connection(db_path)
    row = db.execute(
        f"select {', '.join(_ENTRY_COLUMNS)} from entries where id = ?",
        [str(entry_id).strip().lower()],
    ).fetchone()
    return Entry(**dict(zip(_ENTRY_COLUMNS, row, strict=True))) if row else None


def subjects(*, db_path: str | Path | None = None) -> list[str]:
    """The subject names `subject()` accepts, alphabetically."""
    db = store.connection(db_path)
    return [r[0] for r in db.execute("select distinct subject from entries order by subject")]


def subject(name: str, *, db_path: str | Path | None = None) -> list[dict[str, Any]]:
    """Every entry of a subject (e.g. "faq", "hardware"), in source order, with all fields.

    Each dict is the entry as written in its source file plus `kind`, the table it is in
    (`hardware` returns kinds `hardware_switches`, `hardware_nics`, `hardware_servers`).
    A kind name ("generations", "hardware_servers") also works. Raises `UnknownSubject`
    (a KeyError) for anything else.
    """
    db = store.connection(db_path)
    key = str(name).strip().lower()
    rows = db.execute("select kind, data from entries where subject = ? order by rowid", [key]).fetchall()
    if not rows:
        rows = db.execute("select kind, data from entries where kind = ? order by rowid", [key]).fetchall()
    if not rows:
        raise UnknownSubject(str(name), subjects(db_path=db_path))
    result = []
    for kind, data in rows:
        fields = json.loads(data)
        result.append({"id": fields["id"], "kind": kind, **fields})
    return result
