"""Reading the knowledge database: full-text search, one entry, one subject.

>>> import knowledge
>>> knowledge.search("what is PFC")[0].title          # doctest: +SKIP
'PFC (Priority Flow Control)'
>>> [e["id"] for e in knowledge.subject("faq")]      # doctest: +SKIP
['faq-do-i-need-infiniband', 'faq-infiniband-vs-ethernet-cost', 'faq-ports-per-server']
"""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from knowledge import store
from knowledge.query import MAX_INPUT_CHARS, boost, fts_query, is_query_word

MAX_LIMIT = 50


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
        default=0.0, description="bm25 relevance, higher is better; 0 outside search.", examples=[7.42]
    )


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


def search(text: str, limit: int = 5, *, db_path: str | Path | None = None) -> list[Entry]:
    """The entries that best answer `text`, best first (at most `limit`, capped at 50).

    Any input is safe: punctuation and FTS syntax are stripped, and a question with no
    searchable word returns an empty list.
    """
    limit = max(0, min(int(limit), MAX_LIMIT))
    query = fts_query(text)
    if not query or not limit:
        return []
    db = store.connection(db_path)
    try:
        # bm25 candidates (rank is negative, lower is better), re-scored by kind
        rows = db.execute(_SEARCH_SQL, {"query": query, "limit": max(4 * limit, 20)}).fetchall()
    except sqlite3.OperationalError as exc:  # a query the tokenizer still rejects
        if "fts5" in str(exc).lower():
            return []
        raise
    hits = [
        Entry(**dict(zip(_ENTRY_COLUMNS, row, strict=False)), score=round(-row[-1] * boost(row[2]), 4)) for row in rows
    ]
    hits.sort(key=lambda hit: hit.score, reverse=True)
    return hits[:limit]


_ACRONYM = re.compile(r"\b[A-Z][A-Z0-9]{1,9}\b")
_ANY_ENTRY_SQL = "select 1 from entries_fts where entries_fts match :term limit 1"


def uncovered_acronyms(text: str, *, db_path: str | Path | None = None) -> list[str]:
    """The acronyms in `text` ("MTU", "DAC", "UFM") that no entry mentions.

    An acronym is almost always what a question is about, so one the knowledge base
    never mentions means the best entry can only be the closest, not the answer. Plain
    words are not checked: "bother" or "someone" missing from the guide says nothing.
    """
    db = store.connection(db_path)
    missing: list[str] = []
    for word in dict.fromkeys(_ACRONYM.findall(str(text or "")[:MAX_INPUT_CHARS])):
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
