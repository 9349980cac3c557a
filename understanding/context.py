"""The dialogue context: what the last answer was about, handed to the client with each
answer and sent back with the next question, so a follow-up that leans on it can be read
(the API keeps no conversation state; the chat keeps the same object in a slot).

The context (advisor.models.DialogueContext) holds the last question as it was
understood, the knowledge entry that answered it (its id and title), the fabric it was
about, and the design on the table (its recommendation id). A client treats it as opaque
data; the API validates its shape and refuses a malformed one (422).

How a follow-up uses it (understanding.dialogue tells an elliptical follow-up by its words):

- the last entry's title biases the search of a follow-up that names nothing of its own
  ("and for runs longer than 50 metres?" after a cabling answer is searched with the
  cabling entry's title);
- a follow-up that names another fabric re-asks the last question for that fabric ("what
  about Ethernet?", "and if it were RoCE instead?": the last question's words with the
  new fabric's);
- "it", "them", "that" bind to the last subject (the entry's names, or the design on the
  table: "what connects them?" after a design is answered from the design).
"""

from __future__ import annotations

import re

from advisor.models import Answer, DialogueContext
from knowledge import formulas
from rules.models import Recommendation
from understanding import dialogue
from understanding.extraction import fabrics_named


def _family(fabric: str) -> str:
    return "infiniband" if fabric.startswith("infiniband") else fabric


def fabric_of(text: str) -> str:
    """The first fabric a text names, as a preference value ("" when none)."""
    named = fabrics_named(text)
    return named[0] if named else ""


_POINTERS = dialogue.POINTERS


def _title_words(title: str) -> list[str]:
    return [word for word in (part.strip("()[],.:;\"'") for part in title.split()) if word]


#: the entry id of every sum done with a question's numbers (knowledge.formulas)
CALCULATION_PREFIX = "calculation-"


def resolve(question: str, context: DialogueContext | None) -> str:
    """The question to look up: the question itself when it stands alone; else, for a
    follow-up that points back with "it" or "them", names another thing and finds nothing
    else to lean on in the last question ("what is SHARP?" -> "which NCCL setting turns it
    on?"), the question with the last subject's names added; else what it leaves out
    of the last one (understanding.dialogue.resolve: a fabric swapped for the last one's keeps
    the rest), with the last entry's title when it names nothing of its own."""
    if context is None or not context.question or not dialogue.is_elliptical(question):
        return question
    own = dialogue.names(question)
    words = dialogue.words_of(question)
    looked_up = dialogue.resolve(question, context)
    if own and words & _POINTERS and looked_up == question and not swaps_fabric(question, context):
        # the last question was about its subject alone ("what is SHARP?"): "it" is that subject
        subject = dialogue.names(context.question) or dialogue.names(context.topic)
        added = [word for word in subject if word.lower() not in question.lower()]
        return f"{question} ({' '.join(added)})" if added else question
    if own or not context.topic or dialogue.says_enough(question):
        return looked_up
    asked = dialogue.names(context.question.partition(" (")[0])
    missing = [word for word in _title_words(context.topic) if word.lower() not in looked_up.lower()]
    if words & _POINTERS and asked:
        # "that" is the last question's own subject ("which switch does that (xdr)"): the
        # title's names of its siblings would keep the follow-up on the last entry
        missing = [word for word in missing if not dialogue.siblings(word.lower(), asked)]
    if not missing:
        return looked_up
    if looked_up.endswith(")"):
        return f"{looked_up[:-1]} {' '.join(missing)})"
    return f"{looked_up} ({' '.join(missing)})"


def recomputed(question: str, context: DialogueContext | None) -> str | None:
    """ "And with 128 GPUs?" after a sum done with the last question's numbers: that
    question again with the follow-up's quantities in place of its own (a rank count, a
    buffer size, a rate), so the sum is done again; None for any other follow-up."""
    if context is None or not context.entry_id.startswith(CALCULATION_PREFIX) or not dialogue.is_elliptical(question):
        return None
    again = context.question
    for kind, new in formulas.quantities_named(question).items():
        old = formulas.quantities_named(again).get(kind)
        if old is not None:
            again = again[: old.start()] + new.group(0) + again[old.end() :]
    for kind, factor in _scaled_quantities(question).items():  # "and with twice the bus bandwidth?"
        old = formulas.quantities_named(again).get(kind)
        number = _NUMBER.search(old.group(0)) if old is not None else None
        if old is not None and number is not None:
            value = float(number.group(0).replace(",", "")) * factor
            start, end = old.start() + number.start(), old.start() + number.end()
            again = f"{again[:start]}{value:g}{again[end:]}"
    return again if again != context.question else None


_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")
_FACTORS = {"twice": 2.0, "double": 2.0, "doubled": 2.0, "triple": 3.0, "tripled": 3.0, "half": 0.5, "halved": 0.5}
_SCALED = re.compile(
    r"\b(?P<factor>twice|double|doubled|triple|tripled|half|halved|\d+(?:\.\d+)?\s?(?:x|times))\s+(?:the\s+|that\s+|as\s+much\s+)?"
    r"(?P<what>bus\s+bandwidth|busbw|algbw|bandwidth|rate|speed|link\s+speed|buffer|message|size|gpus|ranks)\b",
    re.I,
)
_KIND_OF = {
    "bus": "rate",
    "busbw": "rate",
    "algbw": "rate",
    "bandwidth": "rate",
    "rate": "rate",
    "speed": "rate",
    "link": "rate",
    "buffer": "size",
    "message": "size",
    "size": "size",
    "gpus": "ranks",
    "ranks": "ranks",
}


def _scaled_quantities(question: str) -> dict[str, float]:
    """The quantities a follow-up scales rather than states ("twice the bus bandwidth",
    "half the buffer", "4x the GPUs"), by the kind formulas.quantities_named reads."""
    scaled: dict[str, float] = {}
    for found in _SCALED.finditer(question):
        said = found["factor"].lower()
        factor = _FACTORS.get(said) or float(re.sub(r"[^\d.]", "", said))
        scaled[_KIND_OF[found["what"].split()[0].lower()]] = factor
    return scaled


def swaps_fabric(question: str, context: DialogueContext | None) -> bool:
    """ "what about Ethernet?" after an answer about InfiniBand: a follow-up that names
    another fabric than the last answer's."""
    if context is None or not context.fabric or not dialogue.is_elliptical(question):
        return False
    named = fabric_of(question)
    return bool(named) and _family(named) != _family(context.fabric)


def shown_design(context: DialogueContext | None) -> str | None:
    """The id of the design on the table, when the context carries one."""
    return context.recommendation_id or None if context is not None else None


def after_answer(looked_up: str, hit: Answer | None, entry_id: str, last: DialogueContext | None) -> DialogueContext:
    """The context a knowledge answer hands back: the question as understood, the entry,
    the fabric it was about (the question's, else the last one's), the design still on the table."""
    return DialogueContext(
        question=_compact(looked_up),
        topic=hit.topic if hit else "",
        entry_id=entry_id if hit else "",
        fabric=fabric_of(looked_up) or (last.fabric if last else ""),
        recommendation_id=last.recommendation_id if last else "",
        previous_recommendation_id=last.previous_recommendation_id if last else "",
        about="knowledge" if hit else "",
        unit_servers=last.unit_servers if last else 0,
        sized_in=last.sized_in if last else "",
    )


def _compact(looked_up: str) -> str:
    """The question as understood, with only the names of what it left out kept ("does
    InfiniBand need it? (pfc)", not every word of the question before): the next follow-up
    leans on the subject, and words carried from turn to turn would pile up."""
    head, bracket, added = looked_up.partition(" (")
    if not bracket or not looked_up.endswith(")"):
        return looked_up
    names = [name for name in dialogue.names(added[:-1]) if name not in head.lower()]
    return f"{head} ({' '.join(names)})" if names else head


def after_design(
    question: str,
    rec: Recommendation | None,
    topic: str = "",
    earlier: DialogueContext | None = None,
    sized_in: str = "",
) -> DialogueContext:
    """The context an answer about a design (or a new design) hands back: with the design it
    replaced, for "what changed?" (the one `earlier` had on the table when this design is
    new, else the one `earlier` said it replaced)."""
    current = rec.id if rec is not None and rec.id else ""
    before = earlier.recommendation_id if earlier is not None else ""
    if before == current:
        before = earlier.previous_recommendation_id if earlier is not None else ""
    return DialogueContext(
        question=question,
        topic=topic,
        fabric=_fabric_of_design(rec),
        recommendation_id=current,
        previous_recommendation_id=before if current else "",
        about="design" if rec is not None else "",
        unit_servers=dialogue.stated_unit_servers(question) or (earlier.unit_servers if earlier else 0),
        sized_in=sized_in or (earlier.sized_in if earlier else ""),
    )


def _fabric_of_design(rec: Recommendation | None) -> str:
    if rec is None:
        return ""
    technology = str(rec.fabric.technology)
    return "infiniband" if technology.startswith("infiniband") else technology if technology != "nvlink" else ""
