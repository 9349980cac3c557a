"""`extract(text)`: the one entry point; never raises, whatever string it is given."""

from __future__ import annotations

import logging
from functools import lru_cache

from spacy.tokens import Doc

from understanding.extraction.answers import lone_count
from understanding.extraction.cues import Cues, cues_in
from understanding.extraction.matching import read
from understanding.extraction.models import Extraction
from understanding.extraction.pipeline import VALUE, nlp
from understanding.extraction.resolve import resolve
from understanding.extraction.resources import load
from understanding.extraction.typos import unswapped

logger = logging.getLogger(__name__)

#: The most of a text anything reads: the API's limit on a question
#: (advisor.models.MAX_QUESTION_CHARS), applied here too because every channel (the API,
#: the chat's actions, the CLI) reaches the extractor, and the chat has no other limit. Past
#: it the rest of a text is not read (a question fits; a pasted log file does not need to be
#: read to the end).
MAX_CHARS = 2_000


def bounded(text: str) -> str:
    """The part of `text` that is read: its first MAX_CHARS characters."""
    return text[:MAX_CHARS]


def extract(text: str, expecting: str | None = None, known_model: str | None = None) -> Extraction:
    """The workload details a question states, with the text span of each.

    `expecting` names the count the conversation has just asked for ("gpu_count"): a
    bare number in the reply is then that count. `known_model` is the GPU earlier turns
    named: "what if 16 racks?" after a GB200 NVL72 design is 16 of its racks.

    >>> extract("We will pretrain a 70B model on 128 H100s.").profile.gpu_count
    128
    >>> extract("about 200", expecting="gpu_count").profile.gpu_count
    200
    """
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    if not text.strip():
        return Extraction()
    try:
        text = bounded(text)
        doc = analysed(text)
        readings = read(doc)
        return resolve(doc, readings + lone_count(doc, readings, expecting), text, known_model)
    except Exception:  # a question we cannot read must not break a conversation
        logger.exception("extraction failed on a %d-character text", len(text))
        return Extraction()


def analysed(text: str) -> Doc:
    """The pipeline's run over the part of `text` that is read, remembered for the last
    texts: `extract`, `fabrics_named` and the cues understanding.understand reads
    (cues_of below) share one run per message. Nothing changes a document after
    the pipeline."""
    return _run(unswapped(bounded(text).translate(_replacements())))


@lru_cache(maxsize=256)
def _run(text: str) -> Doc:
    return nlp()(text)


@lru_cache(maxsize=1)
def _replacements() -> dict[int, str]:
    """One-for-one character replacements (data/text.yaml): curly quotes, odd spaces, dashes."""
    table = load("text")["same_length_replacements"]
    return {ord(old): new for old, new in table.items() if len(old) == 1 and len(new) == 1}


def warm_up() -> None:
    """Build the pipeline and the rule matcher now rather than on the first question."""
    extract("warm up: 8 DGX H100 for training, budget $1M")


def fabrics_named(text: str) -> list[str]:
    """The fabrics a text names, as preference values ("why not RoCE?" -> ["rocev2"]),
    whether or not it wants them: for questions about the alternatives."""
    if not isinstance(text, str) or not text.strip():
        return []
    doc = analysed(text)
    found = [str(t._.get(VALUE)) for t in doc if t.ent_type_ in ("FABRIC_ETH", "FABRIC_IB")]
    return list(dict.fromkeys(found))


def gpus_named(text: str) -> list[str]:
    """The GPU models a text names ("and in the H100 version?" -> ["H100"])."""
    if not isinstance(text, str) or not text.strip():
        return []
    return list(dict.fromkeys(str(t._.get(VALUE)) for t in analysed(text) if t.ent_type_ == "GPU"))


def cues_of(text: str) -> Cues:
    """The cues of `text`, from the pipeline's run over it (shared with `extract(text)`:
    the run is remembered, so asking both tokenizes the text once)."""
    if not isinstance(text, str) or not text.strip():
        return Cues(text="" if not isinstance(text, str) else text, found=())
    return Cues(text=bounded(text), found=cues_in(analysed(text)))
