"""One small handler per kind of detail: each turns a rule's match into a `Reading`.

Handlers are registered by name (`@handler("size")`) and rules in data/rules.yaml say
which one reads them, so adding a detail is a new pattern group and, at most, a new
handler; nothing branches on rule names.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any

from spacy.tokens import Doc, Token

from rules.models import LINK_SPEEDS, MAX_GPUS, MAX_GPUS_PER_NODE
from understanding.extraction.pipeline import SCALE, VALUE
from understanding.extraction.readings import Match, Reading
from understanding.extraction.resources import load
from understanding.extraction.systems import SystemShape, rack_of, server_of, system_shape

Handler = Callable[[Match], Reading | None]
HANDLERS: dict[str, Handler] = {}
HANDLER_OPTIONS: dict[str, frozenset[str]] = {}  # the rule options each handler reads

SIZE_LIMITS: dict[str, tuple[int, int]] = {
    "gpu_count": (1, MAX_GPUS),
    "node_count": (1, MAX_GPUS),
    "gpus_per_node": (1, MAX_GPUS_PER_NODE),
    "racks": (1, 100_000),
    "nodes_per_rack": (1, 256),
}
COUNT_FIELDS = ("gpu_count", "node_count", "gpus_per_node")  # the cluster's size, as ProfileDraft has it
MAX_PARAMS_B = 1_000_000
MAX_BUDGET_USD = 1e12
MIN_BUDGET_USD = 1_000  # "$500" is not a cluster budget
YES_NO_OPENERS = {
    "is",
    "are",
    "does",
    "do",
    "did",
    "can",
    "could",
    "should",
    "would",
    "will",
    "shall",
    "may",
    "might",
    "must",
}
WH_OPENERS = {"what", "which", "how", "why", "when", "where", "who", "whats", "what's"}
REFINERS = {"and", "with", "+", "using", "plus", "(", "/", "-", "on"}
# "could you size ...?", "can you please design ...?": a request in a question's clothes
POLITE_OPENERS = {"can", "could", "would", "will"}
REQUEST_VERBS = {
    "size",
    "design",
    "spec",
    "quote",
    "build",
    "propose",
    "recommend",
    "suggest",
    "plan",
    "architect",
    "lay",
    "draw",
    "sketch",
    "configure",
    "give",
    "put",
    # "could you show the RoCE variant?", "can you price it on Spectrum-X?"
    "show",
    "price",
    "redo",
    "rerun",
    "model",
    "cost",
}


def handler(name: str, *options: str) -> Callable[[Handler], Handler]:
    """Register a handler under the name rules use in their `handler:` key, with the
    options of data/rules.yaml it reads (a rule giving any other is refused at load)."""

    def register(function: Handler) -> Handler:
        HANDLERS[name] = function
        HANDLER_OPTIONS[name] = frozenset(options)
        return function

    return register


# ----------------------------------------------------------------------------- helpers


def _value(doc: Doc, index: int) -> Any:
    return doc[index]._.get(VALUE)


def _count(value: Any, limits: tuple[int, int]) -> int | None:
    """A whole number within limits, or None ("2.5 GPUs", "0 GPUs", "5 million GPUs")."""
    if not isinstance(value, float | int) or not math.isfinite(value):
        return None
    if abs(value - round(value)) > 1e-9:
        return None
    count = round(value)
    low, high = limits
    return count if low <= count <= high else None


def _claims(namespace: str, indices: list[int] | range) -> frozenset[tuple[str, int]]:
    return frozenset((namespace, index) for index in indices)


SENTENCE_ENDS = {".", "?", "!", ";"}


def _words_before(doc: Doc, index: int, window: int) -> list[Token]:
    """Up to `window` tokens before `index`, in the same sentence."""
    words: list[Token] = []
    for position in range(index - 1, max(-1, index - window - 1), -1):
        if doc[position].text in SENTENCE_ENDS:
            break
        words.append(doc[position])
    return words[::-1]


def _sentence(doc: Doc, index: int) -> list[Token]:
    """The tokens of the sentence around `index` (up to and including its end mark)."""
    start = index
    while start > 0 and doc[start - 1].text not in SENTENCE_ENDS:
        start -= 1
    end = index
    while end < len(doc) and doc[end].text not in SENTENCE_ENDS:
        end += 1
    return [token for token in doc[start : min(end + 1, len(doc))] if not token.is_space]


@lru_cache(maxsize=1)
def _negation() -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    table = load("rules")["negation"]
    return frozenset(table["negators"]), frozenset(table["bridges"]), frozenset(table["releases"])


def _negated(doc: Doc, start: int) -> bool:
    """A negator right before `start`, or one bridge word away ("not for training")."""
    negators, bridges, releases = _negation()
    before = _words_before(doc, start, 2)
    if before and before[-1].lower_ in negators:
        return doc[start].lower_ not in releases
    return len(before) == 2 and before[0].lower_ in negators and before[1].lower_ in bridges


def _followed_by(match: Match, words: list[str] | None, after: int | None = None) -> bool:
    """The token at `after` (default: right after the match) is one of `words`."""
    if not words:
        return False
    position = match.end if after is None else after
    return position < len(match.doc) and match.doc[position].lower_ in words


def _after_any(doc: Doc, start: int, words: Iterable[str], window: int) -> bool:
    wanted = {word.lower() for word in words}
    return any(token.lower_ in wanted for token in _words_before(doc, start, window))


@lru_cache(maxsize=1)
def _context_models() -> frozenset[str]:
    """GPU models that need a number or GPU word next to them ("L4" is also layer 4)."""
    return frozenset(m["id"] for m in load("entities")["gpu"]["models"] if m.get("needs_context"))


def _gpu_of(token: Token) -> str | None:
    """The GPU model a GPU or SYSTEM token stands for."""
    if token.ent_type_ == "GPU":
        model: str = token._.get(VALUE)
        return model
    if token.ent_type_ == "SYSTEM":
        shape = system_shape(token._.get(VALUE))
        return shape.gpu_model if shape else None
    return None


def _model_in(match: Match) -> tuple[str, tuple[int, int]] | None:
    for token in match.doc[match.start : match.end]:
        model = _gpu_of(token)
        if model:
            return model, (token.i, token.i + 1)
    return None


# ----------------------------------------------------------------------------- quantities


def _opens_as_asked(match: Match) -> bool:
    """A rule with `opening` matches only where it opens the message: nothing but
    punctuation before it, or the words of its `lead_ins` ("ok, same on RoCE?")."""
    if not match.rule.get("opening"):
        return True
    lead_ins = set(match.rule.get("lead_ins") or ())
    return all(token.is_punct or token.lower_ in lead_ins for token in match.doc[: match.start])


@handler("size", "not_followed_by", "limits", "opening", "not_after", "lead_ins")
def read_size(match: Match) -> Reading | None:
    """GPU count, node count and GPUs per node from the roles of a size pattern.

    A pattern may bind one role twice ("32 GPUs now, growing to 256"): the larger is the
    size to design for. `not_after`: words that, just before the match, make it no size
    ("fit in one node"). `opening`: the match must open the message ("1024 of them,
    training" after "h100": the GPUs the conversation named; "16 servers, 8 of them ..."
    counts something the message itself names)."""
    if _followed_by(match, match.rule.get("not_followed_by")):  # "H100 x 8 nodes" counts nodes
        return None
    if not _opens_as_asked(match):
        return None
    not_after = match.rule.get("not_after")  # "does a 405b fit in one node": a capacity asked, no size
    if not_after and _after_any(match.doc, match.start, not_after, window=2):
        return None
    plausible = {k: tuple(v) for k, v in match.rule.get("limits", {}).items()}
    values: dict[str, Any] = {}
    sources: dict[str, tuple[int, int]] = {}
    claimed: list[int] = []
    for role, contract in SIZE_LIMITS.items():
        for index in match.role_tokens(role):
            value = _value(match.doc, index)
            if role not in plausible and _count(value, contract) is None:
                # "100 GPUs per node" is out of range, not a total of 100: keep the number from
                # every other reading, give nothing, and say what could not be used
                return Reading(
                    match.rule["name"],
                    "ignore",
                    match.start,
                    match.end,
                    {},
                    {},
                    _claims("quantity", match.role_tokens(role)),
                    rejected={role: (match.start, match.end)} if role in COUNT_FIELDS else {},
                )
            count = _count(value, plausible.get(role, contract))
            if count is None:  # implausible for this phrasing: another reading may fit
                return None
            values[role] = max(count, values.get(role, count))
            sources[role] = (match.start, match.end)
            claimed.append(index)
    if not values:
        return None
    model = _model_in(match)
    if model is not None:
        values["gpu_model"], sources["gpu_model"] = model
    return Reading(match.rule["name"], "size", match.start, match.end, values, sources, _claims("quantity", claimed))


#: words that may follow a match that closes its clause ("make it double please", "Ethernet only then")
_CLOSING_PARTICLES = frozenset({"please", "pls", "plz", "then", "now", "too", "instead", "again", "thanks", "thx"})


def _ends_clause(match: Match) -> bool:
    """Nothing but punctuation (not a hyphen: "double-rail") or a closing particle follows the match."""
    doc = match.doc
    if match.end >= len(doc):
        return True
    following = doc[match.end]
    return (following.is_punct and following.text != "-") or following.lower_ in _CLOSING_PARTICLES


_PERCENT = re.compile(r"^(\d+(?:\.\d+)?)\s*(?:%|percent|pct)$", re.I)


@handler("scale", "factors", "limits", "clause_end", "percent")
def read_scale(match: Match) -> Reading | None:
    """A relative size: the factor of a word ("double" 2, "halve" 0.5, by the rule's
    `factors`, keyed by word stem) or of a number ("3x the GPUs", "10-fold"); a rule with
    `clause_end` reads it only where it closes its clause ("make it double", not "make it
    double-rail")."""
    indices = match.role_tokens("size_factor")
    if not indices or (match.rule.get("clause_end") and not _ends_clause(match)):
        return None
    token = match.doc[indices[0]]
    if match.rule.get("percent"):  # "50% more GPUs": 1.5 (a share, one MEASURE token)
        share = _PERCENT.match(token.text)
        factor = 1 + float(share.group(1)) / 100 if share else None
    elif token.ent_type_ == "NUM":
        factor = _value(match.doc, token.i)
    else:
        factor = next((f for stem, f in match.rule["factors"].items() if token.lower_.startswith(stem)), None)
    low, high = match.rule["limits"]
    if not isinstance(factor, float | int) or not low <= factor <= high or factor == 1:
        return None
    claims = _claims("quantity", [token.i]) if token.ent_type_ == "NUM" else frozenset()
    return Reading(
        match.rule["name"],
        "scale",
        match.start,
        match.end,
        {"size_factor": float(factor)},
        {"size_factor": (match.start, match.end)},
        claims,
    )


@handler("added", "limits")
def read_added(match: Match) -> Reading | None:
    """A size grown by a count in a unit: "two more racks", "another 64 GPUs" (the unit's
    word as said; Extraction.size_added reads it as GPUs, servers or racks). A count added
    without a unit ("phase 2 adds another 768") is GPUs, what a cluster is counted in."""
    counts, units = match.role_tokens("size_added"), match.role_tokens("added_unit")
    if not counts or (not units and unit_follows(match.doc, match.end)):
        return None
    low, high = match.rule["limits"]
    count = _count(_value(match.doc, counts[0]), (low, high))
    if count is None:
        return None
    return Reading(
        match.rule["name"],
        "added",
        match.start,
        match.end,
        {"size_added": count, "added_unit": match.doc[units[0]].lower_ if units else "gpus"},
        {
            "size_added": (match.start, match.end),
            "added_unit": (units[0], units[0] + 1) if units else (match.start, match.end),
        },
        _claims("quantity", [counts[0]]),
    )


def unit_follows(doc: Doc, index: int) -> bool:
    """A unit or its qualifier right after a count ("another 16 nodes", "another 64 more
    GPUs", "another 50%"): the count is not bare."""
    if index >= len(doc):
        return False
    token = doc[index]
    return token.ent_type_ in ("GPU", "SYSTEM") or token.lower_ in _added_unit_words()


@lru_cache(maxsize=1)
def _added_unit_words() -> frozenset[str]:
    macros = load("rules")["macros"]
    return frozenset([*macros["ADDED_UNIT"]["LOWER"]["IN"], "more", "additional", "extra", "new", "%", "percent", "x"])


def _bare_rack(token: Token) -> bool:
    """ "NVL72" without its GPU ("24 NVL72 racks of GB300"): the rack of whichever GPU the
    text names, GB200 only when it names none."""
    return token.lower_.replace(" ", "").startswith("nvl")


def _named_rack(doc: Doc) -> SystemShape | None:
    """The rack-scale system of the GPU the text names ("GB300" -> GB300 NVL72), if any."""
    shapes = (rack_of(str(_value(doc, token.i))) for token in doc if token.ent_type_ == "GPU")
    return next((shape for shape in shapes if shape is not None), None)


@handler("systems", "rack_scale_only", "scalable_units")
def read_systems(match: Match) -> Reading | None:
    """ "2 DGX H200": two nodes of the system's GPUs; "2 GB200 NVL72": two racks of 18 trays."""
    counts = match.role_tokens("systems")
    systems = match.role_tokens("system")
    groups = match.role_tokens("groups")
    if not systems or not (counts or (groups and match.rule.get("scalable_units"))):
        return None
    shape = _named_rack(match.doc) if _bare_rack(match.doc[systems[0]]) else None
    named = match.doc[systems[0]]
    shape = shape or (server_of(str(_value(match.doc, named.i))) if named.ent_type_ == "GPU" else None)
    shape = shape or system_shape(_value(match.doc, systems[0]))
    if shape is None:
        return None
    # "4 SUs of DGX H100": the reference architecture's units per SU when the text gives none
    units = _count(_value(match.doc, counts[0]), SIZE_LIMITS["node_count"]) if counts else shape.scalable_unit or None
    if groups and units is not None:  # "4 SuperPODs of 127 DGX H100"
        group_count = _count(_value(match.doc, groups[0]), SIZE_LIMITS["node_count"])
        units = units * group_count if group_count is not None else None
    if units is None or units * shape.unit_gpus > MAX_GPUS:
        return None
    if match.rule.get("rack_scale_only") and shape.nodes_per_unit == 1:
        return None
    nodes = units * shape.nodes_per_unit
    system_span = (systems[0], systems[0] + 1)
    whole = (match.start, match.end)
    values = {
        "node_count": nodes,
        "gpus_per_node": shape.gpus,
        "gpu_count": units * shape.unit_gpus,
        "gpu_model": shape.gpu_model,
    }
    sources = {"node_count": whole, "gpus_per_node": system_span, "gpu_count": whole, "gpu_model": system_span}
    return Reading(
        match.rule["name"],
        "systems",
        match.start,
        match.end,
        values,
        sources,
        _claims("quantity", [*counts[:1], systems[0], *groups]),
    )


@handler("groups")
def read_groups(match: Match) -> Reading | None:
    """ "2 pods of 256 GPUs": a GPU total from groups of GPUs (how many nodes is not said)."""
    groups = match.role_tokens("groups")
    sizes = match.role_tokens("group_gpus")
    if not groups or not sizes:
        return None
    count = _count(_value(match.doc, groups[0]), SIZE_LIMITS["node_count"])
    size = _count(_value(match.doc, sizes[0]), SIZE_LIMITS["gpu_count"])
    if count is None or size is None or count * size > MAX_GPUS:
        return None
    values: dict[str, Any] = {"gpu_count": count * size}
    sources = {"gpu_count": (match.start, match.end)}
    model = _model_in(match)
    if model is not None:
        values["gpu_model"], sources["gpu_model"] = model
    return Reading(
        match.rule["name"], "size", match.start, match.end, values, sources, _claims("quantity", [groups[0], sizes[0]])
    )


#: switch chips and families whose capacity is said in Tb/s ("tomahawk 5 is 51.2T")
_SWITCH_CHIPS = ("tomahawk", "jericho", "spectrum", "quantum", "trident", "asic", "switch", "silicon", "chip")


@handler("params", "min_scale", "not_followed_by")
def read_params(match: Match) -> Reading | None:
    """Model size in billions of parameters; needs a size word ("70B", "1.8 trillion")."""
    index = match.role_tokens("model_params_b")[0]
    token = match.doc[index]
    value, scale = token._.get(VALUE), token._.get(SCALE) or 1.0
    if scale >= 1e12 and (
        _followed_by(match, match.rule.get("not_followed_by"))
        or _after_any(match.doc, match.start, _SWITCH_CHIPS, window=4)
    ):
        return None  # "51.2T at 400G", "tomahawk 5 is 102.4t": a switch's capacity in Tb/s; "70B at 512 GPUs" stays a model
    if not isinstance(value, float | int) or scale < float(match.rule.get("min_scale", 1e9)):
        return None
    billions = value / 1e9
    if not 0 < billions <= MAX_PARAMS_B:
        return None
    billions = round(billions, 6)
    return Reading(
        match.rule["name"],
        "params",
        match.start,
        match.end,
        {"model_params_b": billions},
        {"model_params_b": (match.start, match.end)},
        _claims("quantity", [index]),
    )


@handler("degree", "field", "limits")
def read_degree(match: Match) -> Reading | None:
    """A parallelism degree of the training plan ("TP 8", "pipeline parallelism of 4
    stages"): a whole number in the contract's range for the rule's field; one out of
    range ("TP 0") gives nothing, and the number is no other detail's."""
    field = match.rule["field"]
    index = match.role_tokens(field)[0]
    low, high = match.rule["limits"]
    degree = _count(_value(match.doc, index), (int(low), int(high)))
    if degree is None:
        return Reading(match.rule["name"], "ignore", match.start, match.end, {}, {}, _claims("quantity", [index]))
    return Reading(
        match.rule["name"],
        "degree",
        match.start,
        match.end,
        {field: degree},
        {field: (match.start, match.end)},
        _claims("quantity", [index]),
    )


CONJUNCTIONS = {"and", "&", "plus", "+", "or", "/"}
DETERMINERS = {"the", "our", "all", "its", "their", "a"}


def _shared(match: Match, words: list[str] | None) -> bool:
    """The match ends in a conjunction that adds one of `words` or a GPU: the amount is
    for both ("$500k for networking and servers"), not for what the match names alone.
    A count after the conjunction starts a new item ("$1M for networking and 128 H100s")."""
    if not words:
        return False
    doc, position = match.doc, match.end
    if position >= len(doc) or doc[position].lower_ not in CONJUNCTIONS:
        return False
    position += 1
    while position < len(doc) and doc[position].lower_ in DETERMINERS:
        position += 1
    return position < len(doc) and (doc[position].lower_ in words or doc[position].ent_type_ in ("GPU", "SYSTEM"))


@handler("budget", "field", "shared_with", "not_followed_by", "not_preceded_by", "min_usd")
def read_budget(match: Match) -> Reading | None:
    """Budget in dollars ("$4M", "4 million dollars", "budget of 800k"), for the rule's
    `field`: the cluster's (`budget_usd`, the default) or the network's alone."""
    field = match.rule.get("field", "budget_usd")
    if _shared(match, match.rule.get("shared_with")):
        return None
    index = match.role_tokens("budget_usd")[0]
    value = _value(match.doc, index)
    if not isinstance(value, float | int):
        return None
    if _followed_by(match, match.rule.get("not_followed_by"), after=index + 1):  # "2 million euros"
        return None
    if index > 0 and match.doc[index - 1].text in match.rule.get("not_preceded_by", ()):  # "£2m to spend"
        return None
    if not float(match.rule.get("min_usd", MIN_BUDGET_USD)) <= value <= MAX_BUDGET_USD:
        return None
    return Reading(
        match.rule["name"],
        "budget",
        match.start,
        match.end,
        {field: float(value)},
        {field: (match.start, match.end)},
        _claims("quantity", [index]),
    )


@handler("correction")
def read_correction(match: Match) -> Reading | None:
    """A value taken back ("not 128") and, when it stands bare, the one meant instead
    ("256 not 128"). Both numbers are claimed, so neither is read as a count of its own."""
    old = match.role_tokens("corrected_old")
    new = match.role_tokens("corrected_new")
    if not old:
        return None
    values: dict[str, Any] = {"corrected_old": _value(match.doc, old[0])}
    sources = {"corrected_old": (old[0], old[0] + 1)}
    if new:
        values["corrected_new"] = _value(match.doc, new[0])
        sources["corrected_new"] = (new[0], new[0] + 1)
    if not all(isinstance(v, float | int) and math.isfinite(v) for v in values.values()):
        return None
    return Reading(
        match.rule["name"], "correction", match.start, match.end, values, sources, _claims("quantity", old + new)
    )


@handler("ignore")
def read_ignored(match: Match) -> Reading | None:
    """Numbers of things that are not GPUs or servers ("8 rails", "15 trillion tokens")."""
    return Reading(
        match.rule["name"], "ignore", match.start, match.end, {}, {}, _claims("quantity", match.role_tokens("ignored"))
    )


# ----------------------------------------------------------------------------- phrases


@handler("cue", "field", "value", "not_after", "not_after_window", "weak")
def read_cue(match: Match) -> Reading | None:
    """A word that says what the cluster does ("fine-tuning", "serving"), unless negated."""
    doc = match.doc
    if _negated(doc, match.start):
        return None
    not_after = match.rule.get("not_after")
    if not_after and _after_any(doc, match.start, not_after, window=int(match.rule.get("not_after_window", 5))):
        return None
    field = match.rule["field"]
    return Reading(
        match.rule["name"],
        "cue",
        match.start,
        match.end,
        {field: match.rule["value"]},
        {field: (match.start, match.end)},
        _claims(field, range(match.start, match.end)),
        weak=bool(match.rule.get("weak", False)),
    )


#: "800G", "400 Gb/s", "200Gbps", "1.6T": the number and the unit of a LINK entity
_LINK_SPEED = re.compile(r"(\d+(?:\.\d+)?)\s*(t|g)?", re.I)


@handler("link_speed", "wh_questions_ask", "opening", "lead_ins")
def read_link_speed(match: Match) -> Reading | None:
    """The compute links' speed asked for ("what if we use 800G?"), in Gb/s; a speed no
    adapter is built for (the contract's LINK_SPEEDS) or a negated one gives nothing. With
    `wh_questions_ask`, a wh-question asks about the speed rather than for it ("what
    optics are used for 800G links?", "when does moving to 800G make sense?"); with
    `opening`, only a speed that opens the message ("and 400G?", not "400G and 800G?")."""
    if _negated(match.doc, match.start) or not _opens_as_asked(match):
        return None
    if match.rule.get("wh_questions_ask") and _wh_question(match.doc, match.start):
        return None
    index = match.role_tokens("speed")[0]
    found = _LINK_SPEED.match(match.doc[index].text)
    if found is None:
        return None
    gbps = float(found.group(1)) * (1000 if (found.group(2) or "").lower() == "t" else 1)
    if gbps not in LINK_SPEEDS:
        return None
    return Reading(
        match.rule["name"],
        "link_speed",
        match.start,
        match.end,
        {"link_gbps": int(gbps)},
        {"link_gbps": (match.start, match.end)},
        _claims("link_gbps", range(match.start, match.end)),
    )


@handler("block", "field")
def read_blocker(match: Match) -> Reading | None:
    """A phrase that looks like a cue and is not one: it claims the words, gives nothing."""
    field = match.rule["field"]
    return Reading(
        match.rule["name"], "block", match.start, match.end, {}, {}, _claims(field, range(match.start, match.end))
    )


@handler("flag", "field", "value", "not_after", "questions_ask", "not_followed_by")
def read_flag(match: Match) -> Reading | None:
    """A yes/no detail stated by a phrase ("budget is tight" -> cost_sensitive True). A
    phrase that is the whole question asks rather than states ("Budget tight? Not
    really."); "what if the budget is tight?" still states it. `not_followed_by`: words
    that, right after the match, make it something else ("RoCE in place of IB")."""
    not_after = match.rule.get("not_after")
    if not_after and _after_any(match.doc, match.start, not_after, window=2):
        return None
    if _followed_by(match, match.rule.get("not_followed_by")):
        return None
    if _followed_by(match, ["?"]) and not _words_before(match.doc, match.start, 1):
        return None
    if match.rule.get("questions_ask") and _in_question(match.doc, match.start):
        return None  # "Does Ultra Ethernet change anything today?" says nothing about the site
    field = match.rule["field"]
    return Reading(
        match.rule["name"],
        "flag",
        match.start,
        match.end,
        {field: bool(match.rule["value"])},
        {field: (match.start, match.end)},
        _claims(field, range(match.start, match.end)),
    )


@handler(
    "preference",
    "wh_questions_ask",
    "not_after",
    "not_inverted",
    "clause_end",
    "alone",
    "questions_too",
    "opening",
    "lead_ins",
)
def read_preference(match: Match) -> Reading | None:
    """The fabric a customer asks for ("we'd like to use RoCE", "IB is a must"); a rule
    with `questions_too` reads it in a question as well ("would 100GbE do instead?"), one
    with `opening` only where it opens the message ("same on RoCE?", not "is PFC the same
    on RoCE?")."""
    doc = match.doc
    index = match.role_tokens("fabric")[0]
    if _negated(doc, match.start) or not _opens_as_asked(match):
        return None
    if not match.rule.get("questions_too") and _in_question(
        doc, match.start, match.rule.get("wh_questions_ask", False)
    ):
        return None
    not_after = match.rule.get("not_after")
    if not_after and _after_any(doc, match.start, not_after, window=2):  # "existing network: 400GbE"
        return None
    if match.rule.get("not_inverted") and index > 0 and doc[index - 1].lower_ in YES_NO_OPENERS:
        return None
    if match.rule.get("clause_end") and not _ends_clause(match):
        return None
    if match.rule.get("alone") and _other_fabric_near(doc, index):
        return None
    value, source = _refined(doc, index)
    return Reading(
        match.rule["name"],
        "preference",
        match.start,
        match.end,
        {"prefer": value},
        {"prefer": source},
        # a fabric read from its place alone ("256 gpus rocev2") leaves the words before
        # it to the details they give
        _claims("prefer", range(index, index + 1) if match.rule.get("alone") else range(match.start, match.end)),
    )


def _in_question(doc: Doc, index: int, wh: bool = False) -> bool:
    """ "Does training require InfiniBand?" and "8 GPUs in one server, do I need InfiniBand?"
    ask; they do not prefer. The sentence ends in "?" and it, or the clause the cue is in,
    opens with an auxiliary verb (or, for rules that say so, a wh-word: "What MTU should
    we set for RoCE?"; the what-if rules keep "what about RoCE?")."""
    words = _sentence(doc, index)
    if not words or words[-1].text != "?" or _polite_request(words):
        return False
    openers = YES_NO_OPENERS | WH_OPENERS if wh else YES_NO_OPENERS
    clause_openers = [words[0]] + [words[i + 1] for i, t in enumerate(words[:-1]) if t.text in (",", ":", "-")]
    return any(opener.i <= index and opener.lower_ in openers for opener in clause_openers)


def _wh_question(doc: Doc, index: int) -> bool:
    """The sentence ends in "?" and it, or the clause `index` is in, opens with a wh-word."""
    words = _sentence(doc, index)
    if not words or words[-1].text != "?":
        return False
    clause_openers = [words[0]] + [words[i + 1] for i, t in enumerate(words[:-1]) if t.text in (",", ":", "-")]
    return any(opener.i <= index and opener.lower_ in WH_OPENERS for opener in clause_openers)


def _polite_request(words: list[Token]) -> bool:
    """ "Could you size a RoCEv2 fabric for 128 MI300X?" asks for a design of that fabric,
    not whether to use it: a polite opener, "you", maybe "please", then a request verb."""
    lowered = [w.lower_ for w in words[:4] if w.lower_ != "please"]
    return len(lowered) >= 3 and lowered[0] in POLITE_OPENERS and lowered[1] == "you" and lowered[2] in REQUEST_VERBS


def _other_fabric_near(doc: Doc, index: int) -> bool:
    """Another fabric named in the same sentence ("ib, roce and ethernet"): a list of
    options, not a choice. The next word naming the same mention more precisely
    ("spectrum-x ethernet"), or a name of the same fabric ("roce w/ spectrum-x"), is not another."""
    fabrics = ("FABRIC_ETH", "FABRIC_IB")
    value = doc[index]._.get(VALUE)
    return any(
        abs(token.i - index) > 1 and token.ent_type_ in fabrics and token._.get(VALUE) != value
        for token in _sentence(doc, index)
    )


def _refined(doc: Doc, index: int) -> tuple[str, tuple[int, int]]:
    """ "Ethernet with RoCE" is RoCE, "InfiniBand (NDR)" is NDR: the more specific fabric."""
    value = doc[index]._.get(VALUE)
    source = (index, index + 1)
    for step in (1, 2, 3):
        position = index + step
        if position >= len(doc):
            break
        token = doc[position]
        if token.ent_type_ in ("FABRIC_ETH", "FABRIC_IB"):
            candidate = token._.get(VALUE)
            if (value == "ethernet" and candidate == "rocev2") or (
                value == "infiniband" and str(candidate).startswith("infiniband_")
            ):
                return candidate, (index, position + 1)
            break
        if token.lower_ not in REFINERS:
            break
    return value, source


@handler("unknown_model")
def read_unknown_model(match: Match) -> Reading | None:
    """A GPU model name the catalogue does not have ("32 H900 GPUs"): nothing to use, but
    the customer is told (Extraction.rejected) rather than asked for a GPU again."""
    index = match.role_tokens("model")[0]
    return Reading(
        match.rule["name"],
        "ignore",
        match.start,
        match.end,
        {},
        {},
        _claims("model", [index]),
        rejected={"gpu_model": (index, index + 1)},
    )


@handler("model_mention")
def read_model(match: Match) -> Reading | None:
    """A GPU model named anywhere ("H100", "DGX B200" -> B200)."""
    doc = match.doc
    index = (match.role_tokens("gpu") or match.role_tokens("system"))[0]
    token = doc[index]
    model = _gpu_of(token)
    if not model:
        return None
    if token.ent_type_ == "GPU" and model in _context_models() and not _has_gpu_context(doc, index):
        return None
    values: dict[str, Any] = {"gpu_model": model}
    sources = {"gpu_model": (index, index + 1)}
    if token.ent_type_ == "SYSTEM":  # the servers' size, should the nodes be counted elsewhere
        shape = system_shape(token._.get(VALUE))
        if shape is not None and shape.nodes_per_unit == 1:
            values["system_gpus"], sources["system_gpus"] = shape.gpus, (index, index + 1)
    return Reading(
        match.rule["name"], "model_mention", match.start, match.end, values, sources, _claims("model", [index])
    )


def _has_gpu_context(doc: Doc, index: int) -> bool:
    gpu_words = {"gpu", "gpus", "card", "cards", "accelerator", "accelerators", "nvidia", "x", "×"}
    neighbours = []
    for step in (-1, 1):  # the next word either side, across one comma or colon ("24 GPUs, L4")
        position = index + step
        if 0 <= position < len(doc) and doc[position].text in (",", ":", "(", ")"):
            position += step
        if 0 <= position < len(doc):
            neighbours.append(doc[position])
    text = doc[index].lower_
    return (
        any(t.ent_type_ == "NUM" or t.lower_ in gpu_words for t in neighbours)
        or text.endswith("s")
        or " " in text  # with a vendor or variant: "NVIDIA L4", "L4 PCIe"
    )
