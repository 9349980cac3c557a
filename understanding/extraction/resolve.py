"""From readings to a ProfileDraft: one resolver per field, then the size fields completed.

Which reading wins when several give a field is data (the `fields:` table at the end of
data/rules.yaml): the largest GPU count (a cluster that "starts at 64 GPUs and grows to
512" is sized for 512), the first stated preference, and so on.

Size: when two of gpu_count, node_count and gpus_per_node are known, the third is
derived if it divides evenly ("256 GPUs across 32 nodes" -> 8 per node).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import ValidationError
from spacy.tokens import Doc

from rules.models import MAX_GPUS, ProfileDraft
from understanding.extraction.handlers import COUNT_FIELDS
from understanding.extraction.models import Correction, Extraction, SizeAdded, Span
from understanding.extraction.readings import Reading
from understanding.extraction.resources import load
from understanding.extraction.systems import rack_of


@dataclass(frozen=True)
class Candidate:
    value: Any
    source: tuple[int, int]
    reading: Reading


@dataclass(frozen=True)
class Decision:
    value: Any
    sources: list[tuple[int, int]]
    readings: tuple[Reading, ...] = ()


Resolver = Callable[[list[Candidate], dict[str, "Decision"]], Decision | None]
RESOLVERS: dict[str, Resolver] = {}


R = TypeVar("R", bound=Resolver)


def resolver(name: str) -> Callable[[R], R]:
    def register(function: R) -> R:
        RESOLVERS[name] = function
        return function

    return register


@resolver("first")
def first(candidates: list[Candidate], decided: dict[str, Decision] | None = None) -> Decision | None:
    """The value stated first."""
    best = min(candidates, key=lambda c: c.source)
    return Decision(best.value, [best.source], (best.reading,))


@resolver("largest")
def largest(candidates: list[Candidate], decided: dict[str, Decision] | None = None) -> Decision | None:
    """The largest value (the first place it was stated)."""
    top = max(c.value for c in candidates)
    best = min((c for c in candidates if c.value == top), key=lambda c: c.source)
    return Decision(best.value, [best.source], (best.reading,))


#: the rule that reads the GPU model a change names ("replace H100 with B200": B200)
REPLACEMENT_RULE = "gpu_model_replacement"


@resolver("counted_first")
def counted_first(candidates: list[Candidate], decided: dict[str, Decision] | None = None) -> Decision | None:
    """The model of the GPUs that were counted: the winning count's ("move from 128 MI250X
    to 256 MI300X" -> MI300X), else any counted ("64 A100s"), else the first one named."""
    decided = decided or {}
    winners = {id(r) for name in ("gpu_count", "node_count") if name in decided for r in decided[name].readings}
    for group in (
        [c for c in candidates if c.reading.rule == REPLACEMENT_RULE],  # "swap the h100s for b200s"
        [c for c in candidates if id(c.reading) in winners],
        [c for c in candidates if c.reading.kind in ("size", "systems")],
        candidates,
    ):
        if group:
            return first(group)
    return None


@resolver("workload")
def workload(candidates: list[Candidate], decided: dict[str, Decision] | None = None) -> Decision | None:
    """Training and inference together (or "mixed") make mixed; weak cues count only alone."""
    strong = [c for c in candidates if not c.reading.weak]
    chosen = strong or candidates
    kinds = {c.value for c in chosen}
    if "mixed" in kinds or {"training", "inference"} <= kinds:
        value = "mixed"
    else:
        value = min(chosen, key=lambda c: c.source).value
    used = chosen if value == "mixed" else [c for c in chosen if c.value == value]
    return Decision(value, sorted({c.source for c in used}), tuple(c.reading for c in used))


def resolve(doc: Doc, readings: list[Reading], text: str | None = None, known_model: str | None = None) -> Extraction:
    """The profile and spans the readings of one document add up to.

    `text` is the question as given (the document may have normalised look-alike
    characters); span texts are cut from it. `known_model` is the GPU earlier turns
    named, for counts that depend on it ("what if 16 racks?" after GB200 NVL72).
    """
    original = doc.text if text is None or len(text) != len(doc.text) else text
    policies: dict[str, str] = load("rules")["fields"]
    decisions: dict[str, Decision] = {}
    for field, policy in policies.items():
        candidates = [
            Candidate(r.values[field], r.sources.get(field, (r.start, r.end)), r) for r in readings if field in r.values
        ]
        if candidates:
            decision = RESOLVERS[policy](candidates, decisions)
            if decision is not None:
                decisions[field] = decision
    _complete_size(decisions, known_model)
    for name in load("rules").get("internal", []):
        decisions.pop(name, None)
    factor = decisions.pop("size_factor", None)
    added, added_unit = decisions.pop("size_added", None), decisions.pop("added_unit", None)
    taken_back, meant = decisions.pop("corrected_old", None), decisions.pop("corrected_new", None)
    correction = (
        Correction(old=float(taken_back.value), new=float(meant.value) if meant is not None else None)
        if taken_back is not None
        else None
    )
    if any(name in decisions for name in COUNT_FIELDS):
        factor = added = None  # "what if we doubled to 512 GPUs?" states the size itself
    profile, kept = _profile(decisions)
    spans = []
    for field, decision in [(field, decisions[field]) for field in kept] + (
        [("size_factor", factor)] if factor else []
    ):
        for start, end in decision.sources:
            first, last = doc[start].idx, doc[start:end].end_char
            spans.append(Span(field=field, text=original[first:last], start=first, end=last))
    spans.sort(key=lambda span: (span.start, span.end, span.field))
    rejected = [
        Span(
            field=name,
            text=original[doc[start].idx : doc[start:end].end_char],
            start=doc[start].idx,
            end=doc[start:end].end_char,
        )
        for reading in readings
        for name, (start, end) in reading.rejected.items()
        if name not in kept
    ]
    return Extraction(
        profile=profile,
        spans=spans,
        rejected=rejected,
        size_factor=factor.value if factor else None,
        size_added=SizeAdded.of(int(added.value), str(added_unit.value)) if added and added_unit else None,
        correction=correction,
    )


def _complete_size(decisions: dict[str, Decision], known_model: str | None = None) -> None:
    """Derive the third of gpu_count / node_count / gpus_per_node from the other two
    (node_count first from racks x servers per rack when it is not stated; GPUs per node
    from a server system named beside a bare node count)."""
    racks, per_rack = decisions.get("racks"), decisions.get("nodes_per_rack")
    if "node_count" not in decisions and racks is not None and per_rack is not None:
        decisions["node_count"] = Decision(racks.value * per_rack.value, _merge(racks.sources, per_rack.sources))
    elif (
        "node_count" not in decisions
        and racks is not None
        and (rack := _rack_scale(decisions.get("gpu_model"), known_model))
    ):
        # "GB200 NVL72, 8 racks": a rack-scale system's node is its rack (the catalogue's
        # server for that GPU is one NVLink domain of 72 GPUs); said so, so that "what if
        # 16 racks?" does not keep an earlier design's 4-GPU compute trays as its nodes
        decisions["node_count"] = Decision(racks.value, racks.sources)
        decisions.setdefault("gpus_per_node", Decision(rack, racks.sources))
    gpus, nodes, per_node = (decisions.get(f) for f in ("gpu_count", "node_count", "gpus_per_node"))
    system = decisions.get("system_gpus")
    if nodes is not None and gpus is None and per_node is None and system is not None:
        # "an 8-node BasePOD of DGX H100": the nodes counted are the system named
        per_node = decisions["gpus_per_node"] = Decision(system.value, system.sources)
    if gpus is None and nodes is not None and per_node is not None:
        total = nodes.value * per_node.value
        if total <= MAX_GPUS:
            decisions["gpu_count"] = Decision(total, _merge(nodes.sources, per_node.sources))
    elif nodes is None and gpus is not None and per_node is not None:
        if gpus.value % per_node.value == 0:
            decisions["node_count"] = Decision(gpus.value // per_node.value, _merge(gpus.sources, per_node.sources))
    elif (
        per_node is None
        and gpus is not None
        and nodes is not None
        and gpus.value % nodes.value == 0
        and 1 <= gpus.value // nodes.value <= 72
    ):
        decisions["gpus_per_node"] = Decision(gpus.value // nodes.value, _merge(gpus.sources, nodes.sources))


def _rack_scale(model: Decision | None, known_model: str | None = None) -> int:
    """The GPUs of one rack when the GPU this text names (else the one named before) is
    a rack-scale system, else 0."""
    shape = rack_of(str(model.value) if model is not None else known_model)
    return shape.unit_gpus if shape is not None else 0


def _merge(*groups: list[tuple[int, int]]) -> list[tuple[int, int]]:
    return sorted({source for group in groups for source in group})


def _profile(decisions: dict[str, Decision]) -> tuple[ProfileDraft, list[str]]:
    """A valid ProfileDraft: a value the contract rejects is dropped, never raised."""
    values = {field: decision.value for field, decision in decisions.items()}
    while True:
        try:
            return ProfileDraft.model_validate(values), list(values)
        except ValidationError as error:
            bad = {str(item["loc"][0]) for item in error.errors() if item.get("loc")}
            if not bad & values.keys():
                return ProfileDraft(), []
            for field in bad:
                values.pop(field, None)
