"""The Fabric Advisor knowledge base: reviewed YAML facts, built into SQLite.

    >>> import knowledge
    >>> knowledge.build().entries > 100                 # rebuilt only when a source changed
    True
    >>> knowledge.search("what is PFC")[0].id
    'glossary-pfc'
    >>> knowledge.subject("faq")[0]["title"]
    'Do I need InfiniBand for my GPU cluster?'

Facts live in `knowledge/sources/*.yaml` (one file per subject, every entry with its
source); `knowledge.catalogue` gives the sizing typed access to hardware, link and cost
facts. `python -m knowledge build|search|subject` does the same from a shell.
"""

from knowledge.build import BuildResult, build, default_db_path
from knowledge.formulas import calculation
from knowledge.search import (
    Entry,
    UnknownSubject,
    embed_entries,
    entry,
    search,
    subject,
    subjects,
    uncovered_acronyms,
    unmentioned_words,
)
from knowledge.units import conversion

__all__ = [
    "BuildResult",
    "Entry",
    "UnknownSubject",
    "build",
    "calculation",
    "conversion",
    "default_db_path",
    "embed_entries",
    "entry",
    "search",
    "subject",
    "subjects",
    "uncovered_acronyms",
    "unmentioned_words",
]
