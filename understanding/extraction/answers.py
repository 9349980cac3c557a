"""A bare number given in reply to a question ("How many GPUs?" - "128").

On its own "128" says nothing: it could be GPUs, nodes, a budget in thousands. Once the
conversation has just asked for a count, the one number in the reply that no pattern
claimed is that count. Used only when the caller says what was asked (`expecting`).
"""

from __future__ import annotations

from spacy.tokens import Doc, Token

from understanding.extraction.cues import CUES
from understanding.extraction.handlers import COUNT_FIELDS, SIZE_LIMITS, _count, unit_follows
from understanding.extraction.pipeline import VALUE
from understanding.extraction.readings import Reading

#: words after which a number counts something named, no answer to "how many GPUs?": a
#: determiner ("which of the two designs") or the other side of a choice ("three tiers or two?")
_COUNTS_SOMETHING_NAMED = frozenset(
    {
        "the",
        "these",
        "those",
        "both",
        "all",
        "our",
        "your",
        "its",
        "their",
        "my",
        "which",
        "or",
        "vs",
        "versus",
        "than",
        "nor",
        # an ordinal or a product's generation, no count: "phase two", "tomahawk 5", "connectx 7"
        "phase",
        "stage",
        "step",
        "wave",
        "tranche",
        "year",
        "gen",
        "generation",
        "version",
        "tomahawk",
        "spectrum",
        "quantum",
        "connectx",
        "bluefield",
        "jericho",
        "nvlink",
        "pcie",
    }
)
#: units after which a number is a measure, no count ("convert 5 miles to kilometres")
_MEASURES = frozenset(
    {
        "mile",
        "miles",
        "km",
        "kilometre",
        "kilometres",
        "kilometer",
        "kilometers",
        "meter",
        "meters",
        "metre",
        "metres",
        "feet",
        "foot",
        "inch",
        "inches",
        "kg",
        "kilograms",
        "pounds",
        "lbs",
        "euros",
        "dollars",
        "hours",
        "hour",
        "minutes",
        "minute",
        "seconds",
        "second",
        "days",
        "day",
        "weeks",
        "week",
        "months",
        "month",
        "years",
        "degrees",
        "celsius",
        "fahrenheit",
        "liters",
        "litres",
    }
)
#: a year said as a date ("in 2027", "by 2026"), no count
_YEAR_LEADS = frozenset(
    {"in", "by", "until", "till", "from", "since", "during", "early", "late", "mid", "before", "after"}
)
#: what a size stated, scaled or grown is read into ("two more racks ... all four": no bare count)
_SIZES = frozenset({*COUNT_FIELDS, "size_factor", "size_added"})


def lone_count(doc: Doc, readings: list[Reading], expecting: str | None) -> list[Reading]:
    """A reading giving `expecting` the reply's one unclaimed whole number, if there is
    exactly one and no pattern already read a size, a scale or a growth ("128", "we have
    128", "about 200")."""
    if expecting not in COUNT_FIELDS or any(reading.values.keys() & _SIZES for reading in readings):
        return []
    claimed = {index for reading in readings for namespace, index in reading.claims if namespace == "quantity"}
    times = [(cue.start, cue.end) for cue in doc.user_data.get(CUES, ()) if cue.label == "time_of_day"]
    numbers = [
        token
        for token in doc
        if token.ent_type_ == "NUM"
        and token.i not in claimed
        and not any(start <= token.idx < end for start, end in times)  # "a taxi tomorrow at seven"
        and not unit_follows(doc, token.i + 1)  # "fit in one node": a count with its unit is no bare number
        and not (token.i > 0 and doc[token.i - 1].lower_ in _COUNTS_SOMETHING_NAMED)
        and not (token.i + 1 < len(doc) and doc[token.i + 1].lower_ in _MEASURES)
        and not _counts_a_thing(doc, token.i + 1)
        and not _in_a_ratio(doc, token.i)
        and token.lower_ != "one"  # "nice one, bye", "that one": a pronoun; no cluster is sized as "one"
        and not _a_year(doc, token)
    ]
    if len(numbers) != 1:
        return []
    token = numbers[0]
    count = _count(token._.get(VALUE), SIZE_LIMITS[expecting])
    if count is None:
        return []
    span = (token.i, token.i + 1)
    return [
        Reading(
            "answer_to_question",
            "size",
            token.i,
            token.i + 1,
            {expecting: count},
            {expecting: span},
            frozenset({("quantity", token.i)}),
        )
    ]


#: words that may follow a bare count without being what it counts ("256 instead", "512 total")
_AFTER_A_BARE_COUNT = frozenset(
    {
        "instead",
        "total",
        "ish",
        "tops",
        "max",
        "maximum",
        "min",
        "minimum",
        "k",
        "x",
        "later",
        "soon",
        "overall",
        "next",
        "pls",
        "plz",
        "ok",
        "okay",
        "maybe",
        "perhaps",
        "today",
        "tomorrow",
        "anyway",
        "though",
        "then",
    }
)


def _counts_a_thing(doc: Doc, at: int) -> bool:
    """The number is followed by a word of its own that is no cluster unit and no filler:
    it counts that thing ("how many grams of yeast are in one packet", "3 kids"), not GPUs
    (a unit of the cluster after it is `unit_follows`' case; "256 then", "512 please" and
    "128 instead" keep a bare count)."""
    if at >= len(doc):
        return False
    word = doc[at]
    # an adverb says when or how ("2048 eventually", "512 initially"), not what is counted
    adverb = word.lower_.endswith("ly")
    return word.is_alpha and not word.is_stop and not adverb and word.lower_ not in _AFTER_A_BARE_COUNT


def _in_a_ratio(doc: Doc, at: int) -> bool:
    """Either side of a ratio ("a 2:1 taper", "3 : 1"): no count."""
    return (at + 1 < len(doc) and doc[at + 1].text in (":", "/")) or (at > 0 and doc[at - 1].text in (":", "/"))


def _a_year(doc: Doc, token: Token) -> bool:
    """A four-digit number from 1990 to 2100 after "in", "by", "until"...: a date."""
    return (
        token.text.isdigit()
        and 1990 <= int(token.text) <= 2100
        and token.i > 0
        and doc[token.i - 1].lower_ in _YEAR_LEADS
    )
