"""What a follow-up leaves out, filled in from the last answer.

People lean on what was just said: after "what is PFC?" they ask "and ECN?", after an
Ultra Ethernet answer "is the spec actually finished?", after a cabling answer "and for
runs longer than 50 metres?". Searched alone, such a question finds whatever its few
words match best (the spec question found the NVL72 rack's specifications). So each
answer hands back a `DialogueContext` (the question as it was understood); the client
(the chat's slot, or any REST client) sends it with the next message, and the API stays
stateless.

A follow-up is elliptical when it opens with a continuation ("and", "what about", "is
it", "why") or points back ("that", "they") and is short. It is then read with the part
of the last question it leaves out: a follow-up that names a technology of its own swaps
it for the last question's and keeps the rest ("and ECN?" after "what is PFC?" asks what
ECN is; "and if it were RoCE?" after "how does InfiniBand do multi-tenancy?" asks about
RoCE multi-tenancy); one that names none asks about the last question's subject.

    >>> resolve("and ECN?", DialogueContext(question="what is PFC?"))
    'and ECN?'
    >>> resolve("is the spec actually finished?", DialogueContext(question="what is ultra ethernet?"))
    'is the spec actually finished? (ultra ethernet)'
    >>> resolve("what is PFC?", DialogueContext(question="what is ultra ethernet?"))
    'what is PFC?'

The context's model is `advisor.models.DialogueContext`, part of the ask contract.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, model_validator
from spacy.lang.en import English
from spacy.matcher import PhraseMatcher
from spacy.tokens import Doc
from spacy.util import filter_spans

from advisor.models import DialogueContext
from knowledge import sources
from understanding import query
from understanding.extraction.extractor import fabrics_named, gpus_named
from understanding.extraction.models import Span
from understanding.extraction.systems import rack_of
from understanding.extraction.tokens import plain_english

DATA_FILE = Path(__file__).with_name("dialogue.yaml")
#: a word that reads as a product or acronym: two capitals ("PFC", "RoCE") or letters and digits ("QM9700")
_NAME_SHAPE = re.compile(r"^(?=.*[A-Za-z])(?:(?=(?:.*[A-Z]){2})|(?=.*\d))[A-Za-z0-9][\w.+-]*$")


class _Vocabulary(BaseModel):
    model_config = ConfigDict(extra="forbid")

    max_words: int = Field(ge=1)
    says_enough: int = Field(ge=1)
    bare_words: int = Field(ge=0)
    openers: list[str]
    anaphors: list[str]
    names: list[str]
    generic: list[str]
    weak: list[str]
    compares: list[str]
    everyday_names: list[str]
    counted_units: dict[str, str]

    @model_validator(mode="after")
    def _everyday_names_are_names(self) -> _Vocabulary:
        unknown = sorted(set(self.everyday_names) - set(self.names))
        if unknown:
            raise ValueError(f"everyday_names must be listed in names too: {', '.join(unknown)}")
        return self


@cache
def _vocabulary() -> _Vocabulary:
    return _Vocabulary.model_validate(yaml.safe_load(DATA_FILE.read_text(encoding="utf-8")))


@cache
def _tokenizer() -> English:
    return plain_english()


@cache
def _matchers() -> dict[str, PhraseMatcher]:
    """One phrase matcher per kind, on lower-cased tokens: openers, anaphors, names."""
    nlp, words = _tokenizer(), _vocabulary()
    matchers = {}
    for kind, phrases in (("openers", words.openers), ("anaphors", words.anaphors), ("names", _names())):
        matcher = PhraseMatcher(nlp.vocab, attr="LOWER")
        matcher.add(kind, [nlp.make_doc(phrase) for phrase in phrases])
        matchers[kind] = matcher
    return matchers


def _names() -> list[str]:
    """The listed names and every product-shaped word of the knowledge base's aliases."""
    found = {
        word
        for record in sources.load()
        for alias in record.data.get("aliases") or []
        for word in str(alias).split()
        if _NAME_SHAPE.match(word)
    }
    return sorted((set(_vocabulary().names) | {word.lower() for word in found}) - set(_vocabulary().generic))


def _spans(kind: str, doc: Doc) -> list[tuple[int, int]]:
    """The matches of one kind, the longest where they overlap ("ultra ethernet", not "ethernet")."""
    spans = filter_spans([doc[start:end] for _, start, end in _matchers()[kind](doc)])
    return [(span.start, span.end) for span in spans]


def siblings(word: str, subject: list[str]) -> bool:
    """`word` names another fabric or GPU than the subject's own ("hdr" beside "xdr")."""
    for named in (fabrics_named, gpus_named):
        kinds = [found for name in subject for found in named(name)]
        if kinds and named(word) and not set(named(word)) <= set(kinds):
            return True
    return False


def words_of(text: str) -> set[str]:
    """The text's words, lower-cased, without the punctuation around them."""
    return {word.strip("?!.,;:()'\"").lower() for word in text.split()}


def is_elliptical(question: str) -> bool:
    """It opens with a continuation or points back at what was said, and is short; or it
    is so short that it names nothing of its own ("how many gpus?", "which one?")."""
    doc = _tokenizer().make_doc(question.strip())
    words = [token for token in doc if not token.is_punct]
    if not words or len(words) > _vocabulary().max_words:
        return False
    opens = any(start == 0 for start, _ in _spans("openers", doc))
    if opens or bool(_spans("anaphors", doc)):
        return True
    names, rest = _split(question)
    return not names and len(rest) <= _vocabulary().bare_words


def _split(text: str) -> tuple[list[str], list[str]]:
    """(names, other content words) of a question, lower-cased, stopwords left out."""
    doc = _tokenizer().make_doc(text)
    named = {index for start, end in _spans("names", doc) for index in range(start, end)}
    names = [doc[start:end].text.lower() for start, end in _spans("names", doc)]
    pointers = {*_vocabulary().anaphors, *_vocabulary().openers}
    rest = [
        token.lower_
        for token in doc
        if token.i not in named
        and not (token.is_punct or token.is_space)
        and not query.is_stopword(token.lower_)
        and token.lower_ not in pointers
    ]
    return list(dict.fromkeys(names)), list(dict.fromkeys(rest))


#: words that point back at the last subject ("does IT need a special NIC?")
POINTERS = frozenset({"it", "its", "it's", "they", "them", "their", "that", "this", "those", "these"})


def points_back(question: str) -> bool:
    """It names its subject with "it", "that", "them" ... (the last answer's)."""
    return any(token.lower_ in POINTERS for token in _tokenizer().make_doc(question))


def says_enough(question: str) -> bool:
    """The follow-up has enough content words of its own to be searched by them, leaning
    on the last answer for its subject alone (dialogue.yaml `says_enough`)."""
    return len(_split(question)[1]) >= _vocabulary().says_enough


def everyday_names() -> frozenset[str]:
    """The names everyday language uses too ("dragonfly", "ring", "sharp"): dialogue.yaml."""
    return frozenset(_vocabulary().everyday_names)


def names(text: str) -> list[str]:
    """The technologies and products a text names, lower-cased ("what is PFC?" -> ["pfc"])."""
    return _split(text)[0]


def resolve(question: str, context: DialogueContext | None) -> str:
    """The question with what it leaves out of the last one added in brackets; the
    question itself when it stands alone or there is nothing to lean on."""
    if context is None or not context.question or not is_elliptical(question):
        return question
    names, rest = _split(question)
    last_names, last_rest = _split(context.question)
    # the subject is also what the answer was titled by ("PFC (Priority Flow Control)"), but
    # not a setting it named ("NCCL_SOCKET_IFNAME" answered one question about NCCL), nor,
    # where "that" points at the subject the last question named ("and xdr?"), the title's
    # names of its siblings (HDR, NDR): they would keep "which switch does that" on that entry
    titled = [name for name in _split(context.topic)[0] if "_" not in name]
    if points_back(question) and not names:
        titled = [name for name in titled if not siblings(name, last_names)]
    last_names = list(dict.fromkeys([*last_names, *titled]))
    if (says_enough(question) or points_back(question)) and not names and last_names:
        # "which env var shows what transport it picked?", "which connector does that use?":
        # it says what it asks, or points back with "it" / "that", and leans on the last
        # subject only (NCCL, the SR4 optic); the last question's other words would outweigh its own
        added = last_names
    elif names and [word for word in rest if word not in _vocabulary().weak]:
        # "and for the ib devices?" after an NCCL answer: its own subject and what it asks
        # of it; the last subject is the setting it is asked in, the last question's other
        # words would outweigh its own
        added = last_names
    else:
        added = last_rest if names else [*last_names, *last_rest]
    added = [word for word in added if word not in question.lower()]
    if not words_of(question) & set(_vocabulary().compares):
        # "is either of them needed on InfiniBand?" after RoCE's PFC and ECN, "and in the
        # H100 version?" after the B200 SuperPOD: the question's fabric or GPU takes the last
        # one's place, which would pull the search back to it (but "how does it differ from
        # RoCE v2?" after Ultra Ethernet compares the two)
        for named in (fabrics_named, gpus_named):
            if named(question):
                added = [word for word in added if not named(word)]
    return f"{question} ({' '.join(added)})" if added else question


#: a count word ("two", "3", "1,024") before "of those": bounded, so the search stays linear
_OF_THOSE = re.compile(r"\b(?P<count>\w{1,12}(?:,\d{3}){0,3})\s{1,3}of\s{1,3}(?:those|them|these)\b", re.I)


_UNITS_ALONE = re.compile(
    r"\b(?P<count>\d{1,3}|one|two|three|four|five|six|seven|eight|nine|ten|twelve|sixteen)"
    r"\s{1,3}(?:full\s{1,3})?(?P<unit>scalable\s{1,3}units?|sus?)\b(?!\s{1,3}(?:of|with)\b)",
    re.I,
)


def units_of_the_model(question: str, gpu_model: str | None, unit_servers: int = 0) -> str:
    """The question with "N SUs" read as N scalable units of the GPU earlier turns named:
    "could this scale to 4 SUs later?" after a GB200 design is 4 SUs of GB200 (a scalable
    unit's size is the platform's, understanding.extraction.systems), or of the servers per
    unit the customer stated (`unit_servers`: "five SUs of 32 systems", then "two SUs" is 64
    servers); unchanged when no GPU was named or the question names its own."""
    if not gpu_model:
        return question
    found = _UNITS_ALONE.search(question)
    if found is None or found["count"].lower() in ("1", "one") or gpus_named(question):
        return question  # "is that 1 SU?" asks about the design, it does not resize it
    unit = f"{unit_servers} {gpu_model} systems each" if unit_servers and rack_of(gpu_model) is None else gpu_model
    return f"{question[: found.end()]} of {unit}{question[found.end() :]}"


#: a scalable unit larger than this is no unit anyone builds (NVIDIA's are 32 to 72 servers,
#: a leaf's ports down): the number is something else ("SUs of 1024 GPUs")
MAX_UNIT_SERVERS = 256
_SERVER_WORD = r"(?:systems?|servers?|nodes?|boxes|box|machines?|hosts?|chassis)"
#: "five SUs of 32 B300 systems", "4 SUs; each SU holds 32 nodes", "32 nodes per SU": the
#: servers in one scalable unit as the customer counts them (bounded, so the search stays linear)
_UNIT_SIZE = re.compile(
    r"\b(?:scalable\s{1,3}units?|sus?)\b\s{0,3}(?:of|with|w/|[,;:(-]\s{0,3}(?:each|every)"
    r"(?:\s{1,3}(?:su|scalable\s{1,3}unit|one))?\s{1,3}(?:with|holds|holding|has|having|of|containing|contains))"
    rf"\s{{1,3}}(?P<of>\d{{1,4}})\s{{1,3}}(?:[\w-]{{1,12}}\s{{1,3}}){{0,3}}?{_SERVER_WORD}\b"
    rf"|\b(?P<per>\d{{1,4}})\s{{1,3}}(?:(?:[\w-]{{1,12}}\s{{1,3}}){{0,3}}?{_SERVER_WORD}\s{{1,3}})?"
    r"(?:per|each|an?|in\s{1,3}(?:each|every|an?))\s{1,3}(?:scalable\s{1,3}unit|su)\b",
    re.I,
)


_SIZED_IN_SERVERS = re.compile(
    rf"\b(?:{_SERVER_WORD[3:-1]}|racks?|nvl\d+|trays?|pods?|sus?|units?|superpods?|dgxs?|hgxs?)\b", re.I
)


def sized_in(spans: Sequence[Span]) -> str:
    """ "servers" when the message's first count is one of servers (or systems, racks, units):
    "190 servers with 8 each", "16 DGX H100"; "gpus" when it is one of GPUs: "1,520 L40S GPUs,
    eight per server";
    "" when it gives no count."""
    first = next((span for span in spans if span.field in ("gpu_count", "node_count")), None)
    if first is None:
        return ""
    return "servers" if _SIZED_IN_SERVERS.search(first.text) else "gpus"


def stated_unit_servers(question: str) -> int:
    """The servers per scalable unit the question states (0 when it states none)."""
    found = _UNIT_SIZE.search(question)
    servers = int(found["of"] or found["per"]) if found else 0
    return servers if 1 <= servers <= MAX_UNIT_SERVERS else 0


def counted_in_last_subject(question: str, context: DialogueContext | None) -> str:
    """The question with "N of those" read as N of the unit the last answer was about:
    "we need two of those with DGX B200" after an answer on what a scalable unit is asks
    for two scalable units (dialogue.yaml `counted_units`, by the words of the answer's
    title); the question unchanged when the last answer counted no such unit."""
    if context is None or context.about != "knowledge" or not context.topic:
        return question
    found = _OF_THOSE.search(question)
    if found is None:
        return question
    for said in (context.topic, context.question):  # the answer's title, else what was asked
        words = f" {re.sub(r'[^a-z0-9]+', ' ', said.lower())} "
        for unit, plural in _vocabulary().counted_units.items():
            if f" {unit} " in words or f" {unit}s " in words:
                return f"{question[: found.start()]}{found['count']} {plural}{question[found.end() :]}"
    return question
