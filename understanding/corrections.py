"""A person takes back something they said: the value they name is replaced, the rest of
the profile kept, and the reply says what changed ("Changed: GPUs 128 -> 256.").

Corrections are told by the kind of language, not by phrases of a test set:

- a **contrast** ("256 not 128", "RoCE, not InfiniBand", "not training but inference",
  "inference instead of training", "8 racks rather than 4"): the side that is meant is read
  on its own, with the unit of the side it contradicts when it has none of its own ("256"
  against "128" that earlier turns held as the GPU count is a GPU count);
- a **correction marker** (understanding/corrections.yaml: "sorry", "oops", "I meant", "make
  that", "actually", "correction") with a value: the value replaces the one of the same
  field ("make that B200" the GPU, "I meant inference" the workload);
- a **bare number** after a marker, with a design on the table ("actually 512"): it is
  read as the size figure it is nearest to, the GPU count or the server count (512 against
  128 GPUs on 16 servers is a GPU count; 24 is a server count), and the reply says which.

A size figure corrected keeps the one it goes with: "4 GPUs per node, not 8" on 16
servers of 8 is 16 servers of 4 (64 GPUs): a person who says how many GPUs a server holds
is describing the servers they have, not a new total (understanding.extraction.models._SIZE_KEPT_WITH);
when the GPU count was stated and the server count only worked out from it ("64 GPUs, 8 per
server"), the GPUs stay and the servers follow. A unit corrected ("64 nodes, not 64 GPUs")
keeps the number and works the count it was taken for out again.
A new GPU count keeps the server shape and a new server count keeps it too.

`revise` is the one function the REST API, the CLI (through advisor.service) and the chat's
slot filling (bot/actions/slots.py) call, so a correction changes the same fields in each.
"""

from __future__ import annotations

import math
from functools import cache
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field
from spacy.lang.en import English
from spacy.matcher import PhraseMatcher
from spacy.tokens import Doc

from advisor.models import Change
from knowledge import catalogue
from rules.models import ProfileDraft
from understanding.extraction import Extraction, extract, fabrics_named
from understanding.extraction.tokens import plain_english

DATA_FILE = Path(__file__).with_name("corrections.yaml")

#: how each profile field is named in "Changed: ..." (in this order)
LABELS = {
    "workload": "workload",
    "gpu_model": "GPU",
    "gpu_count": "GPUs",
    "node_count": "servers",
    "gpus_per_node": "GPUs per server",
    "prefer": "fabric",
    "model_params_b": "model size",
    "budget_usd": "budget",
    "network_budget_usd": "network budget",
    "tp": "TP",
    "pp": "PP",
}
#: size fields a bare corrected number can be (the nearest in ratio wins)
_BARE_FIELDS = ("gpu_count", "node_count")


class Revision(BaseModel):
    """What a message did to the profile of earlier turns."""

    model_config = ConfigDict(extra="forbid")

    extraction: Extraction
    merged: ProfileDraft
    kind: str = Field(
        default="", description='"contrast", "marker", "bare" for a correction; empty for none.', examples=["contrast"]
    )
    changes: list[Change] = Field(default_factory=list)
    note: str = Field(default="", description="How an ambiguous correction was read.")

    @property
    def corrects(self) -> bool:
        """It is a correction that changed something."""
        return bool(self.kind) and bool(self.changes)


class _Words(BaseModel):
    model_config = ConfigDict(extra="forbid")

    markers: list[str] = Field(min_length=1)
    negations: list[str] = Field(min_length=1, description='"X not Y", or "not Y but X" with a joiner.')
    instead: list[str] = Field(min_length=1, description='"X instead of Y": the value meant first.')
    joiners: list[str] = Field(min_length=1)
    not_a_contrast: list[str] = Field(description='"not sure", "not 100%": a "not" that takes nothing back.')
    shape: list[str] = Field(min_length=1, description='Words that state a server\'s shape ("per node", "each").')


_KINDS = ("markers", "negations", "instead", "joiners", "not_a_contrast", "shape")


@cache
def _words() -> _Words:
    return _Words.model_validate(yaml.safe_load(DATA_FILE.read_text(encoding="utf-8")))


@cache
def _nlp() -> English:
    return plain_english()


@cache
def _matcher() -> PhraseMatcher:
    nlp, words = _nlp(), _words()
    matcher = PhraseMatcher(nlp.vocab, attr="LOWER")
    for kind in _KINDS:
        matcher.add(kind, [nlp.make_doc(phrase) for phrase in getattr(words, kind)])
    return matcher


def _matches(doc: Doc) -> list[tuple[int, int, str]]:
    """(start, end, kind) of every phrase of understanding/corrections.yaml in the document."""
    strings = doc.vocab.strings
    return sorted((start, end, strings[key]) for key, start, end in _matcher()(doc))


def bare_count_field(profile: ProfileDraft | None) -> str:
    """The count a bare number replaces once a design is shown ("and at 512?"): the
    servers when the person has counted servers and never GPUs ("16 servers?" then "32?"),
    else the GPUs."""
    if profile is not None and profile.node_count is not None and profile.gpu_count is None:
        return "node_count"
    return "gpu_count"


def has_marker(text: str) -> bool:
    """It says it takes something back ("sorry", "I meant", "make that", "actually")."""
    return any(kind == "markers" for _, _, kind in _matches(_nlp().make_doc(text)))


def contrast(text: str) -> tuple[str, str] | None:
    """(the side meant, the side taken back) of "X not Y", "X instead of Y", "not Y but
    X"; None when the text contrasts nothing."""
    doc = _nlp().make_doc(text)
    found = _matches(doc)
    excluded = {start for start, _, kind in found if kind == "not_a_contrast"}
    joiners = [(start, end) for start, end, kind in found if kind == "joiners"]
    for start, end, kind in found:
        if kind not in ("negations", "instead") or start in excluded:
            continue
        # the side meant starts after the last marker before the contrast ("sorry, 256 not 128")
        lead = max((e for s, e, k in found if k == "markers" and e <= start), default=0)
        after = [(s, e) for s, e in joiners if s >= end]
        if kind == "negations" and after:  # "not 128 but 256", "not 8 GPUs each, it's 4"
            old, new = doc[end : after[0][0]], doc[after[0][1] :]
        else:  # "256 not 128", "inference instead of training"
            old, new = doc[end:], doc[lead:start]
        old_text, new_text = old.text.strip(" ,;.-"), new.text.strip(" ,;.-")
        if old_text and new_text:
            return new_text, old_text
    return None


def _derived(draft: ProfileDraft) -> dict[str, Any]:
    """The draft's values with a missing GPU or server count worked out from the other two."""
    values = draft.model_dump(exclude_none=True)
    nodes, per_node, gpus = draft.node_count, draft.gpus_per_node, draft.gpu_count
    if gpus is None and nodes is not None and per_node is not None:
        values["gpu_count"] = nodes * per_node
    elif nodes is None and gpus is not None and per_node and gpus % per_node == 0:
        values["node_count"] = gpus // per_node
    return values


def _shown(field: str, value: Any) -> str:
    if value is None:
        return "not given"
    if field in ("budget_usd", "network_budget_usd"):
        return f"${float(value):,.0f}"
    if field == "model_params_b":
        return f"{float(value):g}B parameters"
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int):
        return f"{value:,}"
    return str(getattr(value, "value", value))


def changes(before: ProfileDraft, after: ProfileDraft) -> list[Change]:
    """The fields that differ between two profiles (sizes as the designs show them)."""
    old, new = _derived(before), _derived(after)
    return [
        Change(field=name, label=label, before=_shown(name, old.get(name)), after=_shown(name, new.get(name)))
        for name, label in LABELS.items()
        if old.get(name) != new.get(name) and new.get(name) is not None
    ]


def changed_line(revision: Revision) -> str:
    """ "Changed: GPUs 128 -> 256." (with how an ambiguous correction was read), or ""."""
    if not revision.corrects:
        return ""
    parts = ", ".join(f"{c.label} {c.before} -> {c.after}" for c in revision.changes)
    return f"Changed: {parts}." + (f" {revision.note}" if revision.note else "")


def _field_of(value: float, earlier: dict[str, Any]) -> str | None:
    """The size field of earlier turns a bare number is nearest to, in ratio."""
    candidates = [(abs(math.log(value / float(earlier[name]))), name) for name in _BARE_FIELDS if earlier.get(name)]
    return min(candidates)[1] if candidates and value > 0 else None


def _contrast_field(old_text: str, earlier: ProfileDraft, known_model: str | None) -> str | None:
    """The field the side taken back names: its own unit ("not 8 GPUs per node"), else the
    field of earlier turns that held its number ("not 128")."""
    taken_back = extract(old_text, known_model=known_model)
    named = list(taken_back.profile.model_dump(exclude_none=True))
    if named:
        return named[0]
    for token in _nlp().make_doc(old_text):
        if token.like_num:
            try:
                number = float(token.text.replace(",", ""))
            except ValueError:
                continue
            for name, value in _derived(earlier).items():
                if isinstance(value, int | float) and math.isclose(float(value), number):
                    return name
    return None


#: a question longer than this is no correction, whatever its words ("is RoCE not as good
#: as InfiniBand for training?"); a short one can be ("make that B200?")
QUESTION_WORDS = 6


def _bare_number(text: str) -> float | None:
    """The one number of a text, when it has exactly one."""
    numbers = [token.text.replace(",", "") for token in _nlp().make_doc(text) if token.like_num]
    if len(numbers) != 1:
        return None
    try:
        value = float(numbers[0])
    except ValueError:
        return None
    return value if value > 0 and value.is_integer() else None


def revise(
    text: str,
    earlier: ProfileDraft | None,
    *,
    expecting: str | None = None,
    shown: bool = False,
    extraction: Extraction | None = None,
    total_in_gpus: bool = False,
) -> Revision:
    """What `text` does to the profile of earlier turns (`earlier`): the extractor's
    reading merged with it (`Extraction.applied_to`), and, when it is a correction, the
    value it names replaced and what changed. `expecting` is the count a bare number
    answers (the chat's form, or a design shown), `shown` whether a design is on the table,
    `total_in_gpus` whether earlier turns gave the cluster's size in GPUs (a per-server
    correction then keeps the GPUs and changes the servers; else it keeps the servers)."""
    before = earlier or ProfileDraft()
    found = extraction or extract(text, expecting=expecting, known_model=before.gpu_model)
    merged = _shape_of_new_model(found.applied_to(before), before, found.profile)
    plain = Revision(extraction=found, merged=merged)
    if earlier is None or not earlier.model_dump(exclude_none=True):
        return plain
    if text.rstrip().endswith("?") and len(text.split()) > QUESTION_WORDS:
        return plain
    kind, note = "", ""
    pair = contrast(text)
    if found.corrected_field(before) is not None:
        kind = "contrast"
    elif pair is not None:
        new_text, old_text = pair
        field = _contrast_field(old_text, before, before.gpu_model)
        meant = _meant(new_text, old_text, field, before.gpu_model)
        if meant.model_dump(exclude_none=True):
            kind = "contrast"
            merged = before.merged(found.profile).merged(meant)
            if field is not None and _swaps_unit(field, meant):  # "64 nodes, not 64 GPUs": the count taken back goes
                unsized = found.profile.model_copy(update=dict.fromkeys(_SHAPE_FIELDS))
                merged = before.model_copy(update={field: None}).merged(unsized).merged(meant)
    relative = found.size_factor is not None or found.size_added is not None
    if not kind and has_marker(text) and not relative:  # "make it 20 nodes more" grows, it takes nothing back
        kind = "marker"
        value = _bare_number(text) if shown else None
        unit_given = value is not None and (expecting is None or _states_a_size(text, before.gpu_model))
        if value is not None and not unit_given:  # "actually 512": the size figure it is nearest to
            field = _field_of(value, _derived(before))
            if field is not None:
                kind = "bare"
                unsized = found.profile.model_copy(update=dict.fromkeys(_BARE_FIELDS))
                merged = before.merged(unsized).merged(ProfileDraft.model_validate({field: int(value)}))
                note = f"(I read {int(value):,} as the number of {LABELS[field]}.)"
    if not kind or merged == before:
        return plain
    merged = _shape_kept(merged, before, text)
    if total_in_gpus:
        merged = _total_kept(merged, before, found.profile)
    return Revision(extraction=found, merged=merged, kind=kind, changes=changes(before, merged), note=note)


def _shape_of_new_model(merged: ProfileDraft, before: ProfileDraft, said: ProfileDraft) -> ProfileDraft:
    """Another GPU model named without a server shape ("the equivalent with GB200 NVL72
    racks" after 18 servers of 8 B200) keeps the GPU count and takes the new model's own
    shape: 8 GPUs a node is no GB200 node (a tray of 4, a rack of 72)."""
    new, old = said.gpu_model, before.gpu_model
    if new is None or old is None or new == old or said.gpus_per_node is not None or said.node_count is not None:
        return merged
    if _shape_fits(old, new, merged.gpus_per_node):  # 4 L40S a server -> 4 H100 PCIe
        return merged
    gpus = merged.gpu_count
    if gpus is None and merged.node_count is not None and merged.gpus_per_node is not None:
        gpus = merged.node_count * merged.gpus_per_node
    if gpus is None:
        return merged
    return merged.model_copy(update={"gpu_count": gpus, "node_count": None, "gpus_per_node": None})


def _shape_fits(old_model: str, new_model: str, per_node: int | None) -> bool:
    """The earlier GPUs a node suit the new model's servers: neither model is a rack-scale
    system (whose nodes are trays or racks) and the new model's servers hold that many."""
    servers = catalogue.servers_for(new_model)
    if per_node is None or not servers:
        return True
    rack_scale = any(s.rack_scale for s in [*servers, *catalogue.servers_for(old_model)])
    return not rack_scale and per_node <= max(s.gpus for s in servers)


#: the fields that size a cluster, each worked out from the other two
_SHAPE_FIELDS = ("gpu_count", "node_count", "gpus_per_node")


def _swaps_unit(field: str, meant: ProfileDraft) -> bool:
    """The side meant gives the number another size unit than the side taken back ("64
    nodes, not 64 GPUs"): the value taken back is no value of the cluster at all, and it
    is worked out again from the one meant and the server shape (read together, both
    sides looked like one server shape, "64 nodes ... 64 GPUs")."""
    named = {name for name in _SHAPE_FIELDS if getattr(meant, name) is not None}
    return field in _SHAPE_FIELDS and bool(named) and field not in named


def _meant(new_text: str, old_text: str, field: str | None, known_model: str | None) -> ProfileDraft:
    """What the side meant states, read with the unit of the side it contradicts; a fabric
    named alone against another ("RoCE, not InfiniBand") is the fabric preferred."""
    meant = extract(new_text, expecting=field if field in _BARE_FIELDS else None, known_model=known_model).profile
    if meant.prefer is None and fabrics_named(old_text):
        named = fabrics_named(new_text)
        if named:
            return ProfileDraft.model_validate({**meant.model_dump(exclude_none=True), "prefer": named[0]})
    return meant


def _shape_kept(merged: ProfileDraft, before: ProfileDraft, text: str) -> ProfileDraft:
    """A correction that gives no server shape in words ("8 racks, not 4") keeps the shape
    of earlier turns: the GB200 NVL72 sized as 18 trays of 4 GPUs a rack stays 4 GPUs a
    server with more servers, instead of turning a rack into one server of 72."""
    shape, new_shape = before.gpus_per_node, merged.gpus_per_node
    if not shape or not new_shape or shape == new_shape or _words_of_shape(text):
        return merged
    gpus = _derived(merged).get("gpu_count")
    if not isinstance(gpus, int) or gpus % shape:
        return merged
    return merged.model_copy(update={"gpus_per_node": shape, "node_count": gpus // shape, "gpu_count": gpus})


def _total_kept(merged: ProfileDraft, before: ProfileDraft, said: ProfileDraft) -> ProfileDraft:
    """A correction of the GPUs a server holds ("the chassis are the four-GPU variant, not
    eight") after a size given in GPUs ("1,520 L40S, eight per server") keeps the 1,520 GPUs
    and changes the servers (380 of 4), as the customer counts the cluster."""
    per_node, gpus = merged.gpus_per_node, before.gpu_count
    if (
        per_node is None
        or per_node == before.gpus_per_node
        or said.gpu_count is not None
        or said.node_count is not None
        or gpus is None
        or gpus % per_node
    ):
        return merged
    return merged.model_copy(update={"gpu_count": gpus, "node_count": gpus // per_node})


def _words_of_shape(text: str) -> bool:
    """The text states how many GPUs a server holds ("4 GPUs per node", "8 each")."""
    return any(kind == "shape" for _, _, kind in _matches(_nlp().make_doc(text)))


def _states_a_size(text: str, known_model: str | None) -> bool:
    """The text gives its number a unit ("512 GPUs", "24 servers")."""
    read = extract(text, known_model=known_model).profile
    return any(getattr(read, name) is not None for name in (*_BARE_FIELDS, "gpus_per_node"))
