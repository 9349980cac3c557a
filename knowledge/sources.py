"""Reading the reviewed YAML sources in `knowledge/sources/`.

Each file is one subject (`faq.yaml` -> subject "faq"); each top-level key in it is one
kind of entry and becomes one table of the database (`hardware.yaml` holds the kinds
`hardware_switches`, `hardware_nics`, `hardware_servers`). Every entry must carry an id
(kebab-case, unique across all files, so one grep finds it), a title, a text and a
source; `aliases` and `note` are optional, and each kind's own fields are typed in
`knowledge/schemas.py`.

Loading validates all of that up front, so a typo in a source file fails the build with
the file and entry named instead of producing a half-right database.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from knowledge.schemas import ID_PATTERN as ID_PATTERN  # the id format, part of this module's interface
from knowledge.schemas import KINDS
from knowledge.schemas import SourceEntry as SourceEntry

SOURCES_DIR = Path(__file__).parent / "sources"

#: Bumped when the database layout changes, so an old database is rebuilt even though
#: its sources did not change.
SCHEMA_VERSION = "1"

_KIND_PATTERN = re.compile(r"^[a-z][a-z0-9_]*$")
#: A top-level key of a source file (a kind): a name at the start of a line, then a colon
_TOP_LEVEL_KEY = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*):", re.MULTILINE)


class SourceError(ValueError):
    """A source file is malformed: names the file and the entry."""


@dataclass(frozen=True)
class Record:
    """One validated entry, with the subject (file) and kind (table) it came from."""

    subject: str
    kind: str
    data: dict[str, Any] = field(hash=False)

    @property
    def id(self) -> str:
        return str(self.data["id"])


def source_files(sources_dir: Path | str | None = None) -> list[Path]:
    """The YAML source files, in a stable (sorted) order."""
    directory = Path(sources_dir) if sources_dir is not None else SOURCES_DIR
    return sorted(directory.glob("*.yaml"))


def fingerprint(sources_dir: Path | str | None = None) -> str:
    """A hash of every source file's name and bytes, plus the schema version.

    The database stores it; a build whose fingerprint matches has nothing to do.
    """
    digest = hashlib.sha256(f"schema:{SCHEMA_VERSION}\n".encode())
    for path in source_files(sources_dir):
        digest.update(path.name.encode() + b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


def load(sources_dir: Path | str | None = None, *, cached: bool = True) -> list[Record]:
    """Every entry of every source file, validated, in file order.

    The default directory is read once per process (the catalogue and the search share
    it); `cached=False` rereads it, and any other directory (tests use copies) is always
    read afresh.
    """
    if sources_dir is None and cached:
        return list(_load_default())
    return _load(Path(sources_dir) if sources_dir is not None else SOURCES_DIR)


@functools.cache
def _load_default() -> tuple[Record, ...]:
    return tuple(_load(SOURCES_DIR, _load_default_file))  # the files `of_kinds` read are not read again


def _load(directory: Path, read: Callable[[Path], Sequence[Record]] | None = None) -> list[Record]:
    """Every file's entries (`read`, default `_load_file`), each kind in one file and
    every id unique across the files."""
    files = source_files(directory)
    if not files:
        raise SourceError(f"no knowledge sources (*.yaml) in {directory}")
    records: list[Record] = []
    seen_ids: dict[str, str] = {}
    seen_kinds: dict[str, str] = {}
    for path in files:
        for record in (read or _load_file)(path):
            if record.kind in seen_kinds and seen_kinds[record.kind] != path.name:
                raise SourceError(f"{path.name}: kind {record.kind!r} already defined in {seen_kinds[record.kind]}")
            seen_kinds[record.kind] = path.name
            if record.id in seen_ids:
                raise SourceError(f"{path.name}: {record.id}: duplicate id, also in {seen_ids[record.id]}")
            seen_ids[record.id] = path.name
            records.append(record)
    return records


def of_kinds(*kinds: str) -> list[Record]:
    """The entries of these kinds in the default sources, validated, in file order,
    reading only the files that declare them (each file once per process).

    The sizing asks for its hardware, link, price and settings kinds here, so designing
    (the CLI's `recommend`, the first design of a process) neither parses nor validates
    the glossary, the FAQ and the practice notes, over half the sources' bytes. Which
    file holds a kind is read from the files' top-level keys (`_declared_kinds`, no YAML
    parse); ids unique across files and each kind in one file are still checked by
    `load`, which the build and tests/test_knowledge_sources.py run on every file."""
    wanted = set(kinds)
    records: list[Record] = []
    for path, declared in _declared_kinds().items():
        if wanted & declared:
            records.extend(r for r in _load_default_file(path) if r.kind in wanted)
    return records


@functools.cache
def _declared_kinds() -> dict[Path, frozenset[str]]:
    """Each default source file's kinds: its top-level keys, read from the text."""
    return {
        path: frozenset(_TOP_LEVEL_KEY.findall(path.read_text(encoding="utf-8"))) for path in source_files(SOURCES_DIR)
    }


@functools.cache
def _load_default_file(path: Path) -> tuple[Record, ...]:
    return tuple(_load_file(path))


def _load_file(path: Path) -> list[Record]:
    """One source file's entries, validated against their kinds' schemas; ids unique
    within the file."""
    subject = path.stem
    try:
        # libyaml's safe loader when PyYAML has it: ten times faster, the same documents
        document = yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as exc:
        raise SourceError(f"{path.name}: not valid YAML: {exc}") from exc
    if not isinstance(document, dict) or not document:
        raise SourceError(f"{path.name}: expected a mapping of kind -> list of entries")
    records: list[Record] = []
    seen_ids: set[str] = set()
    for kind, entries in document.items():
        if not isinstance(kind, str) or not _KIND_PATTERN.match(kind):
            raise SourceError(f"{path.name}: kind {kind!r} must be a snake_case table name")
        schema = KINDS.get(kind)
        if schema is None:
            raise SourceError(
                f"{path.name}: unknown kind {kind!r}; add its schema to knowledge/schemas.py (known: {', '.join(KINDS)})"
            )
        if not isinstance(entries, list):
            raise SourceError(f"{path.name}: {kind} must be a list of entries")
        for position, raw in enumerate(entries, start=1):
            where = f"{path.name}: {kind} entry {position}"
            if not isinstance(raw, dict):
                raise SourceError(f"{where}: expected a mapping")
            if "id" in raw:
                where = f"{path.name}: {raw['id']}"
            try:
                entry = schema.model_validate(raw)
            except ValidationError as exc:
                raise SourceError(f"{where}: {_errors(exc)}") from exc
            if entry.id in seen_ids:
                raise SourceError(f"{where}: duplicate id, also in {path.name}")
            seen_ids.add(entry.id)
            # keep the file's field order; fill the optional common fields
            data = {**raw, "aliases": entry.aliases, "note": entry.note}
            records.append(Record(subject=subject, kind=kind, data=data))
    return records


def _errors(exc: ValidationError) -> str:
    """pydantic's errors on one line each: `field: message (got value)`."""
    return "; ".join(
        f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']} (got {e.get('input')!r})"
        for e in exc.errors(include_url=False)
    )
