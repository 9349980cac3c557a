"""The one decision of what a message wants, used by `/v1/ask`, the CLI and the chat.

The chat's intent classifier (Rasa) routes a turn to an action, but which reply the
message gets (a design, a knowledge answer, an answer about the design on the table) is
decided here, from the message, what earlier turns established and whether a design is
shown. The action server calls `understand` for every turn that is not small talk, so
the chat and the API cannot disagree on the same words.

The decision is data: understanding/decisions.yaml lists the rules in order, each a
rule-engine condition over boolean facts computed once per message (`message_facts`),
and the first that holds decides; its name is returned as `decided_by`. In short:

1. Once a design is shown, a message asking about one of its figures or settings
   (understanding/extraction/data/cues.yaml `design`: "price?", "what MTU do we set", "why not Dragonfly+?") is
   about that design, unless it gives a new GPU or server count (a what-if). A fabric,
   workload or training plan ("and with PP 4?") stated after it is a what-if too.
2. A relative resize ("double it") or a GPU/server count, model size or budget is a
   sizing request, except a question that names no workload, asks for nothing to be
   designed, continues no sizing of earlier turns, and that the knowledge base answers
   ("what does an InfiniBand fabric for 16 DGX H100 cost?" asks for the guide's figure),
   or a question about someone else's figures or cluster.
3. A phrase asking for a design ("what network do we need") is a sizing request; a
   question (what, how, why, is ...) is a knowledge question; details that continue or
   start a profile ("it is for training") continue the sizing.

A sizing request can carry a question of its own ("..., is Dragonfly+ worth
considering?"): `side_question` is that clause, answered beside the recommendation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from pathlib import Path
from typing import Any

import rule_engine
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from advisor.models import Change
from knowledge.formulas import RATIO
from rules.models import ProfileDraft
from understanding import dialogue, small_talk
from understanding.extraction.cues import Cues
from understanding.extraction.extractor import cues_of

DECISIONS_FILE = Path(__file__).with_name("decisions.yaml")
SIZE_FIELDS = ("gpu_count", "node_count", "model_params_b", "budget_usd", "network_budget_usd")
COUNT_FIELDS = ("gpu_count", "node_count")
#: details that change the design shown when stated after it ("with RoCE?", "and with PP 4?")
WHAT_IF_FIELDS = ("prefer", "workload", "tp", "pp", "moe", "link_gbps")
#: a message of at most this many words that names a design topic is about the design
#: shown even without "it" or "our" ("price?", "and mtu?", "switch count")
SHORT_FOLLOW_UP_WORDS = 5


class Want(StrEnum):
    sizing = "sizing"
    question = "question"
    design = "design"
    other = "other"  # tells nothing the advisor reads: small talk, a bare term ("SHARP")
    off_topic = "off_topic"  # not the advisor's to do: "order me a pizza", "what's the weather?"
    small_talk = "small_talk"  # a greeting, thanks or goodbye and nothing else ("thanks, that's all")


class Understanding(BaseModel):
    """What a message wants, and what to answer it from."""

    want: Want
    design_topics: list[str] = Field(default_factory=list, description="Figures of the design asked about.")
    side_question: str | None = Field(default=None, description="A question asked inside a sizing request.")
    decided_by: str = Field(default="", description="The rule of understanding/decisions.yaml that decided it.")
    changes: list[Change] = Field(
        default_factory=list, description='What a correction changed ("sorry, 256 not 128"): understanding.corrections.'
    )
    changed: str = Field(default="", description='The line that says it: "Changed: GPUs 128 -> 256."')


def design_topics(question: str) -> list[str]:
    """The figures of a recommendation a question asks for ("how many switches is that?"
    -> ["switches"]), in the order of understanding/extraction/data/cues.yaml; empty for anything else."""
    return cues_of(question).topics()


def is_question(text: str) -> bool:
    """It asks something (a question word or a question mark), rather than tells; in any
    of its clauses when it gives no count ("nccl grabs the wrong interface, which env var";
    "256 h200 on rocev2, what pfc settings too" is a request with a question beside it),
    else where it gives the count ("on a 2 node test busbw beats the NIC?? is nccl lying")."""
    cues = cues_of(text)
    if _asks(cues, 0, len(text)):
        return True
    spans = _clause_spans(cues.text)
    counted = [(start, end) for start, end in spans if _gives_a_count(cues.text[start:end])]
    return any(_asks(cues, start, end) for start, end in (counted or spans))


def asks_anywhere(text: str) -> bool:
    """One of its clauses asks, the clause with the count or another ("2 node h100 allreduce
    in nccl-tests, what busbw per nic is normal")."""
    cues = cues_of(text)
    return any(_asks(cues, start, end) for start, end in [(0, len(text)), *_clause_spans(cues.text)])


def count_clause_asks(text: str) -> bool:
    """The clause that gives the count asks ("what does an InfiniBand fabric for 16 DGX H100
    cost?"), rather than states what is built with a question beside it ("100k h100s,
    colossus style build. 3 tier?"); with no counted clause, whether the text asks."""
    cues = cues_of(text)
    counted = [(start, end) for start, end in _clause_spans(cues.text) if _gives_a_count(cues.text[start:end])]
    if not counted:
        return is_question(text)
    return any(_asks(cues, start, end) for start, end in counted)


def _asks(cues: Cues, start: int, end: int) -> bool:
    return cues.has("knowledge", start, end) or cues.text[start:end].rstrip().endswith("?")


#: most words of a reply that reads as a name or a company ("Jane van der Berg", "Acme AI Lab")
NAME_WORDS = 6


def asks_instead_of_answering(text: str) -> bool:
    """Typed where a detail was asked (a name, a company, an email), the text asks
    something instead ("what does NDR mean?", "how much would that cost", "wait, which
    switch is that?"): one of its clauses asks (`is_question`'s cues or a question mark).

    A name or a company that merely opens with a word that can ask ("Will Smith", "Can
    Demir", "Do Thi Lan", "When Labs") is a value: every cue found is a lone opening word
    (anchored `at: start` in understanding/extraction/data/cues.yaml), no clause ends with a question
    mark, and the text is written as a name (a few words, each capitalised)."""
    cues = cues_of(text)
    spans = _clause_spans(cues.text)
    if any(cues.text[start:end].rstrip().endswith("?") for start, end in spans):
        return True
    asking = [cue for start, end in spans for cue in cues.matches("knowledge", start, end)]
    return bool(asking) and not (all(cue.at == "start" for cue in asking) and _written_as_a_name(cues.text))


def _written_as_a_name(text: str) -> bool:
    """A few words, each that starts with a letter capitalised ("Will Smith", "Do Thi Lan")."""
    words = text.split()
    return 0 < len(words) <= NAME_WORDS and all(word[0].isupper() for word in words if word[0].isalpha())


def asks_about_reported_figures(text: str) -> bool:
    """ "what % would IB be at the guide's numbers?", "did Meta's 24K-GPU cluster use
    DCQCN?": a question about figures or a cluster that are not the customer's."""
    return cues_of(text).has("reported")


def asks_for_design(text: str) -> bool:
    return cues_of(text).has("sizing")


def about_shown_design(text: str) -> bool:
    """It points at the design on the table ("it", "our", "the network") or is short."""
    return cues_of(text).has("deictic") or len(text.split()) <= SHORT_FOLLOW_UP_WORDS


# `(?:(?<!\s)\s+)?`: a break's leading spaces are taken from the start of their run only
# (a break found from inside a run is found from its start too, and reading the rest of
# the run again from each of its positions is quadratic)
_CLAUSE_BREAK = re.compile(
    r"(?<=[.?!;:])\s+|(?:(?<!\s)\s+)?(?:,|\s-\s|\s–\s|\s—\s|\band\s+also\b|\balso\b)\s*"
    r"(?=(?:(?:also|and|but|plus)\s+)?(?:is|are|should|would|does|do|can|could|what|whats|what's|how|why|which|will|any)\b)",
    re.I,
)


def clauses(text: str) -> list[str]:
    """The sentences and question clauses of a message."""
    return [text[start:end] for start, end in _clause_spans(text)]


def _clause_spans(text: str) -> list[tuple[int, int]]:
    """Where each clause of `clauses` is in the text (start, end), stripped of " ,-"."""
    spans: list[tuple[int, int]] = []
    start = 0
    for found in _CLAUSE_BREAK.finditer(text):
        spans.append((start, found.start()))
        start = found.end()
    spans.append((start, len(text)))
    return [span for span in (_stripped(text, start, end, " ,-") for start, end in spans) if span[0] < span[1]]


def _stripped(text: str, start: int, end: int, chars: str) -> tuple[int, int]:
    while start < end and text[start] in chars:
        start += 1
    while end > start and text[end - 1] in chars:
        end -= 1
    return start, end


#: a clause that only asks for the design ("setting up an h100 cluster, what fabric?"): the
#: request itself, not a question beside it
_REQUEST_ITSELF = re.compile(
    r"^\W*(?:and\s+|so\s+)?(?:what|which)\s+(?:network|fabric|interconnect|topology)(?:\s+(?:then|pls|please))?\W*$",
    re.I,
)


def side_question(text: str) -> str | None:
    """The question clause of a sizing request that asks something besides the design
    ("is dragonfly worth considering at this size?"), if there is one."""
    cues = cues_of(text)
    text = cues.text
    spans = _clause_spans(text)
    for index, (start, end) in enumerate(spans):
        part = text[start:end]
        # a question, or a clause that opens with a question word ("..., what pfc settings")
        asks = _asks(cues, start, end) or bool(_WH_START.match(_LEADING_JOINER.sub("", part)))
        if (
            index
            and asks
            and (cues.topics(start, end) or not cues.has("sizing", start, end))
            and not _gives_a_count(part)
            and not _REQUEST_ITSELF.match(part)
        ):
            return _LEADING_JOINER.sub("", " ".join(text[a:b] for a, b in spans[index:]))
        asked = cues.first("side", start, end)
        if asked is not None and (index or asked > start) and not _gives_a_count(text[asked:end]):
            return " ".join([text[asked:end], *(text[a:b] for a, b in spans[index + 1 :])])
    if len(spans) < 2:
        return _listed_question(cues)
    start, end = spans[0]
    if _asks(cues, start, end) and not cues.has("sizing", start, end) and not _gives_a_count(text[start:end]):
        return text[start:end]
    return _listed_question(cues)


def _listed_question(cues: Cues) -> str | None:
    """A question listed after the request's details, comma- or dash-separated: "20k h100
    training, ib vs roce whats cheaper at that scale", "600 a100s training, hdr ib ok? budget
    tight", "18 gb300 nvl72 for pretraining — roce or xdr?"."""
    text = cues.text
    spans: list[tuple[int, int]] = []
    start = 0
    for separator in [*_LIST_SEPARATOR.finditer(text), None]:
        end = separator.start() if separator else len(text)
        spans.append(_stripped(text, start, end, " \t\n\r\f\v"))
        start = separator.end() if separator else len(text)
    for index, (start, end) in enumerate(spans[1:], start=1):
        part = text[start:end]
        if (
            (_asks(cues, start, end) or "?" in part)
            and not cues.has("sizing", start, end)
            and not _gives_a_count(part)
            and not _REQUEST_ITSELF.match(part)
        ):
            return ", ".join(text[a:b] for a, b in spans[index:])
    return None


#: what separates the items of a request written as a list: a comma, or a dash between
#: spaces ("18 gb300 nvl72 for pretraining — roce or xdr?")
_LIST_SEPARATOR = re.compile(r",|\s[—–-]\s")
_WH_START = re.compile(r"^(?:what|whats|what's|which|how|why)\b", re.I)
_LEADING_JOINER = re.compile(r"^(?:(?:and|but|plus|also)\s+)+", re.I)
# a count: "1,024 GPUs", "16k h100s", "8 x gpus". The number's run is read up to 20
# characters (the rest of a longer run is a word of the `\w+` part) and the spaces around
# "k" once: both keep the pattern linear on long runs of digits or spaces
_COUNT = re.compile(
    r"\b\d[\d,.]{0,20}\s*(?:k\b\s*)?(?:x\s*)?(?:\w+\s+){0,2}(?:gpus?|nodes?|servers?|h100s?|h200s?|b200s?|a100s?)", re.I
)


def _gives_a_count(text: str) -> bool:
    return bool(_COUNT.search(text))


class DecisionRule(BaseModel):
    """One rule of understanding/decisions.yaml."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    when: str = Field(min_length=1, description="A rule-engine condition over the facts.")
    want: Want
    topics: bool = Field(description="Whether the design topics the message names go with the decision.")


class DecisionFile(BaseModel):
    """understanding/decisions.yaml as a whole."""

    model_config = ConfigDict(extra="forbid")

    facts: dict[str, str] = Field(min_length=1, description="Each fact's name and what it means.")
    rules: list[DecisionRule] = Field(min_length=1)


class DecisionFileError(ValueError):
    """understanding/decisions.yaml is malformed: the message names the file and the rule."""


@dataclass(frozen=True)
class Decision:
    """A rule of understanding/decisions.yaml with its compiled condition."""

    rule: DecisionRule
    condition: rule_engine.Rule


def load_decisions(data: Any, source: str = "decisions.yaml") -> list[Decision]:
    """Validate the decision rules and compile their conditions, naming the file and the
    rule on the first problem: the shape, a name used twice, a condition that does not
    parse or names a fact the file does not declare, facts that differ from the ones
    `message_facts` computes, and a last rule that does not always hold."""
    try:
        spec = DecisionFile.model_validate(data)
    except ValidationError as exc:
        error = exc.errors(include_url=False)[0]
        path = ".".join(str(part) for part in error["loc"])
        raise DecisionFileError(f"{source}: {path}: {error['msg']}") from exc
    if set(spec.facts) != set(FACTS):
        raise DecisionFileError(
            f"{source}: facts must be the ones understanding.understand computes: {', '.join(FACTS)} "
            f"(declared: {', '.join(spec.facts)})"
        )
    types = dict.fromkeys(spec.facts, rule_engine.DataType.BOOLEAN)
    context = rule_engine.Context(type_resolver=rule_engine.type_resolver_from_dict(types))
    decisions: list[Decision] = []
    seen: set[str] = set()
    for rule in spec.rules:
        where = f"{source}: rule {rule.name}"
        if rule.name in seen:
            raise DecisionFileError(f"{where}: the name is used twice")
        seen.add(rule.name)
        try:
            condition = rule_engine.Rule(rule.when.strip(), context=context)
        except rule_engine.SymbolResolutionError as exc:
            raise DecisionFileError(f"{where}: condition names unknown fact {exc.symbol_name!r}") from exc
        except rule_engine.EngineError as exc:
            raise DecisionFileError(f"{where}: bad condition {rule.when!r}: {exc.message}") from exc
        decisions.append(Decision(rule=rule, condition=condition))
    if decisions[-1].rule.when.strip() != "true":
        raise DecisionFileError(f"{source}: rule {decisions[-1].rule.name}: the last rule must be `true`")
    return decisions


@cache
def decisions() -> list[Decision]:
    """understanding/decisions.yaml, validated and compiled once per process."""
    return load_decisions(yaml.safe_load(DECISIONS_FILE.read_text(encoding="utf-8")), DECISIONS_FILE.name)


#: the facts every decision rule reads, in understanding/decisions.yaml's order
FACTS = (
    "question",
    "count_asked",
    "reported",
    "new_count",
    "sized",
    "design_shown",
    "names_topics",
    "points_at_design",
    "what_if",
    "asks_only_about",
    "asks_for_design",
    "calculated",
    "computed",
    "count_and_workload",
    "resized",
    "workload_named",
    "continues",
    "knowledge_answers",
    "gives_details",
    "earlier_profile",
    "corrects",
    "errand",
    "in_domain",
    "everyday_sense",
    "unfamiliar",
    "follows_answer",
    "small_talk",
    "knowledge_sure",
    "says_enough",
    "one_unit",
    "tested",
    "path",
    "trouble",
    "set_aside",
)


def message_facts(
    question: str,
    found: ProfileDraft,
    given: ProfileDraft | None,
    topics: list[str],
    *,
    resized: bool,
    design_shown: bool,
    knowledge_answers: bool,
    calculated: bool,
    computed: bool = False,
    corrects: bool = False,
    follows_design: bool = False,
    follows_answer: bool = False,
    knowledge_sure: bool = False,
    unfamiliar: bool = False,
) -> dict[str, bool]:
    """The facts of understanding/decisions.yaml for one message, each computed once."""
    new_count = resized or any(getattr(found, name) is not None for name in COUNT_FIELDS)
    cues = cues_of(question)
    sense = domain_sense(question)
    return {
        "question": is_question(question),
        "count_asked": count_clause_asks(question),
        "reported": asks_about_reported_figures(question),
        "new_count": new_count,
        "sized": new_count or any(getattr(found, name) is not None for name in SIZE_FIELDS),
        "design_shown": design_shown,
        "names_topics": bool(topics),
        # the last answer was about the design ("how many switches?" -> "what is the cost
        # per GPU?"): a figure asked next is asked of it too, without "it" or "our"
        # ... but not how something works ("can you explain how a ring all-reduce moves data?")
        # ... nor a question set aside from it ("by the way, what is Resilient RoCE?")
        "points_at_design": about_shown_design(question)
        or (follows_design and design_shown and not cues.has("mechanism") and not cues.has("aside")),
        # ... a workload or fabric named in asking why something is so is the subject, not a change
        "what_if": (any(getattr(found, name) is not None for name in WHAT_IF_FIELDS) and not cues.has("explains_why"))
        or (found.gpu_model is not None and cues.has("change"))
        or (bool(topics) and cues.has("include"))
        # "could we do 2:1 to save money?": a ratio proposed for the design's leaves
        or ("oversubscription" in topics and RATIO.search(question) is not None),
        "asks_only_about": asks_only_about(question),
        "asks_for_design": asks_for_design(question),
        "calculated": calculated,
        "computed": computed,
        "count_and_workload": new_count and found.workload is not None,
        "resized": resized,
        "workload_named": found.workload is not None,
        "continues": given is not None and given.workload is not None,
        "knowledge_answers": knowledge_answers,
        "gives_details": bool(found.model_dump(exclude_none=True)),
        "earlier_profile": given is not None,
        "corrects": corrects,
        "one_unit": cues.has("one_unit"),
        "tested": cues.has("tested") and asks_anywhere(question),
        "path": cues.has("path") and asks_anywhere(question),
        "trouble": cues.has("trouble") and asks_anywhere(question),
        "errand": cues.has("errand"),
        "in_domain": sense == "domain",
        "everyday_sense": sense == "everyday",
        "unfamiliar": unfamiliar,
        "follows_answer": follows_answer,
        "small_talk": small_talk.reply_key(question) is not None,
        "knowledge_sure": knowledge_sure,
        "says_enough": dialogue.says_enough(question),
        "set_aside": cues.has("aside"),
    }


def domain_sense(text: str) -> str:
    """ "domain" when the text names something of GPU clusters and their networks: a word
    of the domain (understanding/extraction/data/cues.yaml `domain`), a technology or
    product (understanding/dialogue.yaml's names and the knowledge base's product-shaped
    aliases), a name written as code, or two different words the domain shares with
    everyday language (cues.yaml `domain_shared`: "switches per rack"). "everyday" when
    its only such word is one shared word ("a Nintendo Switch", "a cluster of stars",
    "the tiers of a wedding cake"): too weak a sign, and the knowledge base's match on
    that one word too. "none" otherwise."""
    cues = cues_of(text)
    named = dialogue.names(text)
    everyday = dialogue.everyday_names()
    if cues.has("domain") or any(name not in everyday for name in named) or any(map(_written_as_code, text.split())):
        return "domain"
    shared = {cues.text[cue.start : cue.end].lower().rstrip("s") for cue in cues.matches("domain_shared")}
    shared |= {name for name in named if name in everyday}  # "dragonfly larvae": an everyday word here
    return "domain" if len(shared) >= 2 else "everyday" if shared else "none"


def _written_as_code(word: str) -> bool:
    """An environment variable or a tool written as code ("NCCL_DEBUG", "all_reduce_perf")."""
    core = word.strip("`'\".,;:!?()[]")
    return "_" in core.strip("_") and core.replace("_", "").isalnum()


#: decisions remembered per combination of facts (2**18 at most; few occur)
_DECIDED: dict[tuple[bool, ...], DecisionRule] = {}
_DECIDED_LIMIT = 4096


def decide(facts: dict[str, bool]) -> DecisionRule:
    """The first rule of understanding/decisions.yaml whose condition holds for `facts`."""
    key = tuple(facts[name] for name in FACTS)
    known = _DECIDED.get(key)
    if known is not None:
        return known
    rule = next(decision.rule for decision in decisions() if decision.condition.matches(facts))
    if len(_DECIDED) >= _DECIDED_LIMIT:
        _DECIDED.clear()
    _DECIDED[key] = rule
    return rule


def understand(
    question: str,
    found: ProfileDraft,
    given: ProfileDraft | None,
    *,
    resized: bool = False,
    design_shown: bool = False,
    knowledge_answers: bool = True,
    calculated: bool = False,
    computed: bool = False,
    changes: list[Change] | None = None,
    changed: str = "",
    follows_design: bool = False,
    follows_answer: bool = False,
    knowledge_sure: bool = False,
    unfamiliar: bool = False,
) -> Understanding:
    """What `question` wants (see the module docstring), decided by the first rule of
    understanding/decisions.yaml that holds.

    `found` is what the extractor read from the question alone, `given` what earlier
    turns established (None when nothing), `resized` whether it scales the size on the
    table, `design_shown` whether a recommendation is on the table, `knowledge_answers`
    whether the knowledge base has an entry for it, `calculated` whether it asks for a sum
    with its own numbers ("time to all-reduce 14 GB over 400G": its "7B" is no cluster),
    `computed` whether the knowledge base's best answer is computed with them (that sum, or
    a count from a design sized for the cluster it names),
    `changes` what a correction of earlier turns changed (understanding.corrections.revise) and
    `changed` the line that says so, `follows_design` whether the last answer was about
    the design on the table (understanding.context), `follows_answer` whether there is an
    earlier answer a follow-up can lean on ("is the spec finished?"), `knowledge_sure`
    whether the knowledge base's best entry matches it closely (a term the domain words
    do not list: "what is ibdiagnet for"), `unfamiliar` whether it has words the knowledge
    base never uses ("wedding", "cake") beside its one everyday word of the domain ("tiers").
    """
    topics = design_topics(question)
    facts = message_facts(
        question,
        found,
        given,
        topics,
        resized=resized,
        design_shown=design_shown,
        knowledge_answers=knowledge_answers,
        calculated=calculated,
        computed=computed,
        corrects=bool(changes),
        follows_design=follows_design,
        follows_answer=follows_answer,
        knowledge_sure=knowledge_sure,
        unfamiliar=unfamiliar,
    )
    rule = decide(facts)
    return Understanding(
        want=rule.want,
        design_topics=topics if rule.topics else [],
        side_question=side_question(question) if rule.want == Want.sizing else None,
        decided_by=rule.name,
        changes=(changes or []) if rule.want == Want.sizing else [],
        changed=changed if rule.want == Want.sizing else "",
    )


def asks_only_about(text: str) -> bool:
    """ "what is RoCE?", "explain InfiniBand": asks what a fabric is, changes nothing."""
    return cues_of(text).has("about")
