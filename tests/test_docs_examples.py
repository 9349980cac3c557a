"""The `>>>` examples of the Markdown docs run and print what the docs say (the
docstrings' examples are tests/test_doctests.py's)."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

from tests.docs import doc_files, doc_id

OPTIONS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def with_examples() -> list[Path]:
    return [doc for doc in doc_files() if ">>> " in doc.read_text(encoding="utf-8")]


def examples(doc: Path) -> doctest.DocTest:
    # a fence line ends an example's expected output, as a blank line does in a docstring
    text = re.sub(r"^```.*$", "", doc.read_text(encoding="utf-8"), flags=re.MULTILINE)
    return doctest.DocTestParser().get_doctest(text, {}, doc_id(doc), str(doc), 0)


def test_the_knowledge_and_extraction_readmes_have_examples() -> None:
    assert {"knowledge/README.md", "understanding/extraction/README.md"} <= {doc_id(doc) for doc in with_examples()}


@pytest.mark.parametrize("doc", with_examples(), ids=doc_id)
def test_the_examples_of_a_doc_run(doc: Path) -> None:
    runner = doctest.DocTestRunner(optionflags=OPTIONS)
    runner.run(examples(doc))
    result = runner.summarize(verbose=False)
    assert result.attempted > 0
    assert result.failed == 0, f"{doc_id(doc)}: {result.failed} of {result.attempted} examples failed (printed above)"
