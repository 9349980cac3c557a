"""The trail states only what is true of the design it explains.

A property test over the catalogue's GPUs x cluster sizes x workloads x preferences: every
statement in `explanation` must hold for the recommendation it sits in. A rule whose decision
lost (the HDR rule beside the NDR one that won) is listed apart in `considered`, never as a
statement; no statement names NVLink on a platform without it; none names a fabric other than
the chosen one as the choice; and the GPU counts, switch counts and link speeds it quotes are
the design's. Each recommendation takes a few milliseconds, so the grid runs in seconds.
"""

from __future__ import annotations

import itertools
import re
from functools import cache

import pytest

from advisor.render.markdown import recommendation_markdown, why_markdown
from rules.engine import recommend
from rules.models import Recommendation, WorkloadProfile
from rules.platform import platform_for
from rules.rulebook import all_rules
from tests.marks import slow_unless_quick

GPUS = ("A100", "H100", "H200", "B200", "B300", "GB200", "GB300", "L40S", "L4", "MI300X")
SIZES = (8, 64, 576, 4096, 16384)
WORKLOADS = ("training", "inference", "mixed")
PREFERENCES: tuple[dict, ...] = (
    {},
    {"prefer": "infiniband"},
    {"prefer": "infiniband_hdr"},
    {"prefer": "rocev2"},
    {"prefer": "ethernet"},
    {"cost_sensitive": True, "model_params_b": 405},
    {"existing_ethernet": True},
    {"model_params_b": 70, "budget_usd": 5_000_000},
    {"model_params_b": 405, "network_budget_usd": 1_000_000},
)
GRID = list(itertools.product(GPUS, SIZES, WORKLOADS, range(len(PREFERENCES))))


@cache
def advise(gpu: str, size: int, workload: str, preference: int) -> Recommendation:
    return recommend(WorkloadProfile(workload=workload, gpu_count=size, gpu_model=gpu, **PREFERENCES[preference]))


def _family(technology: str) -> str:
    return "infiniband" if technology.startswith("infiniband") else technology


# what a rule may decide, and the design's value for it
def _design_value(rec: Recommendation, key: str) -> object:
    technology = str(rec.fabric.technology)
    return {
        "fabric": _family(technology),
        "ib_generation": technology.removeprefix("infiniband_") if technology.startswith("infiniband") else None,
        "topology": str(rec.topology.kind),
    }.get(key)


NO_NVLINK = re.compile(r"\b(?:no|without|not|lacks?) NVLink\b", re.I)
CHOICE = re.compile(
    r"\b(?:so the fabric is|so the design uses|the design takes|so the fabric stays) (?P<name>[^,.;:()]+)"
)
GPU_COUNT = re.compile(r"\b(\d[\d,]*) GPUs\b")
SWITCH_COUNT = re.compile(r"\b(\d[\d,]*) (?:compute |leaf |spine |core )?switch(?:es)?\b")
SPEED = re.compile(r"\b(\d+) ?(?:Gb/s|GbE)\b")


def _number(text: str) -> int:
    return int(text.replace(",", ""))


def _named_fabric(name: str) -> tuple[str, str | None]:
    """The family (and InfiniBand generation) a choice phrase names."""
    generation = next((g.lower() for g in ("HDR", "NDR", "XDR") if g in name), None)
    if "InfiniBand" in name or generation:
        return "infiniband", generation
    if "RoCE" in name:
        return "rocev2", None
    if "Ethernet" in name:
        return "ethernet", None
    return "", None


def _contradictions(rec: Recommendation) -> list[str]:
    """Every statement of the trail that contradicts the design, with why."""
    problems: list[str] = []
    platform = platform_for(rec.profile.gpu_model)
    technology = str(rec.fabric.technology)
    family = _family(technology)
    generation = technology.removeprefix("infiniband_") if family == "infiniband" else None
    gpus = {rec.profile.gpu_count, rec.profile.gpus_per_node, platform.scale_up.gpus, platform.gpus_per_host}
    gpus |= {16, 64, 576}  # the guide's mid-scale band and the NVL72 SuperPOD's scalable unit, named as such
    switches = {rec.topology.total_switches, rec.topology.leaf_switches, rec.topology.spine_switches}
    switches |= {line.quantity for line in rec.bill_of_materials if line.category == "switch"}
    switches.add(sum(line.quantity for line in rec.bill_of_materials if line.category == "switch"))
    switches.add(sum(line.quantity for line in rec.bill_of_materials if line.category == "switch" and line.reused))
    speeds = {rec.fabric.link_gbps, platform.network("compute").gbps} | {p.gbps for p in rec.ports_per_server}
    for reason in rec.explanation:
        text = reason.statement
        where = f"{reason.rule_id}: {text}"
        if "Not chosen" in text:
            problems.append(f"an overridden rule's statement in the trail: {where}")
        if not platform.has_nvlink and "NVLink" in NO_NVLINK.sub("", text):
            problems.append(f"NVLink named on {platform.server} ({platform.scale_up.words}): {where}")
        for match in CHOICE.finditer(text):
            named, named_generation = _named_fabric(match["name"])
            if named and (named != family or (named_generation and named_generation != generation)):
                problems.append(f"names {match['name']!r} as the choice, but the design is {technology}: {where}")
        for count in GPU_COUNT.findall(text):
            if _number(count) not in gpus:
                problems.append(f"{count} GPUs is not this design's ({sorted(gpus)}): {where}")
        for count in SWITCH_COUNT.findall(text):
            if _number(count) not in switches:
                problems.append(f"{count} switches is not this design's ({sorted(switches)}): {where}")
        for speed in SPEED.findall(text):
            if _number(speed) not in speeds:
                problems.append(f"{speed} Gb/s is not a speed of this design ({sorted(speeds)}): {where}")
    return problems


def _decisions_that_lost(rec: Recommendation) -> list[str]:
    """Reasons whose rule decided something other than what the design is."""
    rules = {rule.id: rule for rule in all_rules()}
    lost = []
    for reason in rec.explanation:
        for key, value in rules[reason.rule_id].decide.items():
            actual = _design_value(rec, key)
            if actual is not None and actual != value:
                lost.append(f"{reason.rule_id} decided {key}={value}, the design has {actual}")
    return lost


#: make check walks the grid for one training and one inference GPU; make test for every GPU
QUICK_GPUS = {"H100", "L4"}


@pytest.mark.parametrize("gpu", slow_unless_quick(GPUS, QUICK_GPUS))
def test_no_statement_in_the_trail_contradicts_the_design(gpu):
    problems = []
    for _, size, workload, preference in (g for g in GRID if g[0] == gpu):
        rec = advise(gpu, size, workload, preference)
        found = _contradictions(rec) + _decisions_that_lost(rec)
        problems += [f"[{gpu} x {size} {workload} {PREFERENCES[preference]}] {p}" for p in found]
    assert not problems, "\n".join(sorted(set(problems))[:40])


def test_a_rule_that_lost_is_listed_apart_with_why_not():
    rec = advise("H100", 4096, "training", 0)
    hdr = next(c for c in rec.considered if c.rule_id == "ib-hdr-matches-nic")
    assert hdr.option.startswith("HDR") and hdr.chosen.startswith("NDR") and hdr.chosen_by == "ib-ndr-matches-nic"
    assert "400 Gb/s" in hdr.why_not
    assert "ib-hdr-matches-nic" not in [r.rule_id for r in rec.explanation]
    assert not any("HDR InfiniBand" in r.statement for r in rec.explanation)


def test_the_renderers_show_what_was_considered_apart_from_the_reasons():
    rec = advise("H100", 4096, "training", 3)  # RoCEv2 asked for: InfiniBand weighed and not taken
    assert any(c.rule_id == "training-16plus-infiniband" for c in rec.considered)
    why = why_markdown(rec)
    reasons, _, considered = why.partition("**Considered, not chosen:**")
    assert "training-16plus-infiniband" in considered and "training-16plus-infiniband" not in reasons
    assert "training-16plus-infiniband" not in recommendation_markdown(rec)


def test_the_api_documents_the_considered_field():
    schema = Recommendation.model_json_schema()
    assert "considered" in schema["properties"]
    assert (
        "not chosen" in schema["properties"]["considered"]["description"].lower()
        or "not taken" in (schema["properties"]["considered"]["description"])
    )
