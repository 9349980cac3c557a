"""Counts for a cluster a question names: "256 h100 pod, how many osfp transceivers on the
nics?", "how many switches does a 2-tier fabric for 512 GPUs need?".

Such a question asks for a fact, not for a design (it does not ask us to recommend, and
often leaves out the workload), but no knowledge entry can hold the count for every size:
the count is what the sizing rules compute. So it is answered from a design sized for the
cluster it names, led by what was sized and what was assumed, with the figures asked for
(the same lines a follow-up about a shown design gets, advisor.answers.followup). Price
questions are left to the knowledge base ("what does a 64-GPU InfiniBand fabric cost?"
asks for the guide's published figure), and so are questions about someone else's
cluster ("how many switches did Meta's 24K cluster use?").
"""

from __future__ import annotations

import re

from pydantic import ValidationError

from advisor.answers import followup
from advisor.designs.recommendations import complete_profile, recommend
from advisor.render import markdown
from knowledge.search import CALCULATION, SIZED, Entry
from rules.models import ProfileDraft, Recommendation
from understanding import understand
from understanding.extraction import extract
from understanding.extraction.extractor import cues_of

#: design topics a count question can ask of a named cluster (understanding/extraction/data/cues.yaml `design`)
COUNTED_TOPICS = ("servers", "racks", "switches", "nics", "ports", "cables", "topology", "power", "allreduce")
#: the workload assumed when a count question names none: the counts of a fabric are the
#: training fabric's (inference may need no scale-out fabric at all, which the reply says)
ASSUMED_WORKLOAD = "training"
MAX_SOURCES = 3


#: "how do we run an all-reduce benchmark across two nodes?" asks how, not how many
HOW_TO = re.compile(r"\bhow\s+(?:do|does|can|could|should|would|to)\b(?!\s+(?:many|much|long))", re.I)
#: an all-reduce asked of a design is its time ("how long does the all-reduce take on 512 GPUs?")
ALLREDUCE_TIME = re.compile(r"\bhow\s+(?:long|fast)\b|\btime\b|\bduration\b|\bms\b|\bseconds?\b", re.I)


def counted_topics(question: str) -> list[str]:
    topics = [topic for topic in understand.design_topics(question) if topic in COUNTED_TOPICS]
    if "allreduce" in topics and not ALLREDUCE_TIME.search(question):
        topics.remove("allreduce")
    return topics


def sized_profile(question: str) -> tuple[ProfileDraft, bool] | None:
    """The cluster a count question names (more than one server), with whether its
    workload was assumed; None when it names no such cluster or asks about another's."""
    if understand.asks_about_reported_figures(question) or understand.asks_for_design(question):
        return None
    found = extract(question).profile
    if found.gpu_count is None and found.node_count is None:
        return None
    assumed = found.workload is None
    draft = ProfileDraft.model_validate(
        {**found.model_dump(exclude_none=True), "workload": found.workload or ASSUMED_WORKLOAD}
    )
    return draft, assumed


def _lead(rec: Recommendation, assumed: bool) -> str:
    assumption = f", assuming {ASSUMED_WORKLOAD} since the question does not say" if assumed else ""
    return (
        f"Sized by our rules for {markdown.workload_line(rec)}{assumption}: "
        f"{rec.fabric.name}, {markdown.topology_line(rec.topology)}."
    )


def answer(question: str) -> Entry | None:
    """The counts a question asks of the cluster it names, from a design sized for it,
    as an entry (sources: the rules that chose the fabric); None when it is no such question."""
    topics = counted_topics(question)
    # a count must be asked ("is nccl lying about busbw on a 2 node test?" names NICs, counts none)
    cues = cues_of(question)
    # a path's switches or hops ("if two nodes sit under the same leaf, how many switches does
    # their traffic cross?") are the topology's, whatever count names the path's ends
    if not topics or HOW_TO.search(question) or not cues.has("counting") or cues.has("path"):
        return None
    stated = sized_profile(question)
    if stated is None:
        return None
    draft, assumed = stated
    try:
        rec = recommend(complete_profile(draft), save=False)
    except ValidationError:
        return None
    if rec.profile.node_count < 2:  # one server: no fabric to count ("one DGX H100")
        return None
    sources = list(dict.fromkeys(reason.source for reason in rec.explanation))[:MAX_SOURCES]
    return Entry.computed(
        "calculation-stated-cluster",
        f"Sized for {rec.profile.gpu_count:,} {rec.profile.gpu_model or ''} GPUs".replace("  ", " "),
        followup.design_answer(rec, topics, question, lead=_lead(rec, assumed)),
        "Fabric Advisor sizing rules, from: " + "; ".join(sources),
        subject=CALCULATION,
        kind=SIZED,
    )
