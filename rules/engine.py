"""The rules engine: profile in, explained recommendation out.

Order of work: derive facts, let the fabric rules pick a family, design and size every
candidate family the same way, let the budget rules weigh the prices, then the advice
rules add configuration and notes. Every fired rule is kept with its statement and
source; that list is the recommendation's explanation.
"""

from __future__ import annotations

from typing import Any

from knowledge import catalogue
from rules import sizing
from rules.design import INFERENCE_PORTS_PER_SERVER, Candidate, design
from rules.facts import derive, pct, usd, usd_range
from rules.models import (
    Alternative,
    Performance,
    Port,
    Reason,
    Recommendation,
    RoceSetting,
    WorkloadProfile,
)
from rules.rulebook import Fired, decisions, evaluate

NETWORK_FAMILIES = ("infiniband", "rocev2", "ethernet")


def recommend(profile: WorkloadProfile) -> Recommendation:
    """The explained recommendation for a complete workload profile."""
    facts = derive(profile)
    fabric_fired = evaluate("fabric", facts)
    chosen = decisions(fabric_fired)["fabric"] if fabric_fired else "infiniband"

    families = (chosen,) if chosen == "nvlink_only" else NETWORK_FAMILIES
    candidates = {family: design(family, facts, profile) for family in families}

    facts.update(_price_facts(candidates, profile), fabric=chosen)
    budget_fired = evaluate("budget", facts)
    final = decisions(fabric_fired + budget_fired)["fabric"] if fabric_fired else chosen
    facts["fabric"] = final
    primary = candidates[final]
    facts.update(_share_facts(primary, profile))

    advice_fired = evaluate("advice", facts)
    advice = decisions(advice_fired)
    fired = fabric_fired + primary.fired + budget_fired + advice_fired

    return Recommendation(
        profile=profile,
        fabric=primary.fabric,
        topology=primary.topology,
        ports_per_server=_ports(profile, facts, primary),
        cost=primary.cost,
        performance=_performance(primary),
        roce_configuration=_roce_checklist() if advice.get("roce_checklist") else [],
        alternatives=[_alternative(c, primary) for f, c in candidates.items() if f != final],
        explanation=[
            _reason(item, fired, final={**decisions(primary.fired), **advice, "fabric": final}) for item in fired
        ],
        warnings=[item.warning for item in fired if item.warning],
    )


def _reason(item: Fired, fired: list[Fired], final: dict[str, Any]) -> Reason:
    """A fired rule as a reason; one whose decision lost to a higher priority says so."""
    statement, overridden_by = item.statement, None
    for key, value in item.rule.decide.items():
        if key in final and final[key] != value:
            overridden_by = next(f for f in fired if f.rule.decide.get(key) == final[key]).rule.id
            statement += f" (Not chosen: {overridden_by} takes precedence.)"
            break
    return Reason(rule_id=item.rule.id, statement=statement, source=item.rule.source, overridden_by=overridden_by)


def _price_facts(candidates: dict[str, Candidate], profile: WorkloadProfile) -> dict[str, Any]:
    """Facts the budget and advice rules weigh: the InfiniBand premium and the
    network's share of the budget."""
    facts: dict[str, Any] = {}
    ib, roce = candidates.get("infiniband"), candidates.get("rocev2")
    premium_low = premium_high = 0.0
    if ib and roce:
        premium_low = max(0.0, ib.cost.network_usd_low - roce.cost.network_usd_low)
        premium_high = max(0.0, ib.cost.network_usd_high - roce.cost.network_usd_high)
    budget = profile.budget_usd or 0.0
    premium_share = (premium_low + premium_high) / 2 / budget if budget else 0.0
    facts.update(
        ib_premium_low_usd=usd(premium_low),
        ib_premium_high_usd=usd(premium_high),
        ib_premium_share=premium_share,
        ib_premium_share_pct=pct(premium_share),
    )
    # each candidate network's price, for a stated network budget ("$1M for the fabric")
    for family in NETWORK_FAMILIES:
        cost = candidates[family].cost if family in candidates else None
        facts[f"{family}_network_low"] = cost.network_usd_low if cost else 0.0
        facts[f"{family}_network_fmt"] = usd_range(cost.network_usd_low, cost.network_usd_high) if cost else ""
    return facts


def _share_facts(primary: Candidate, profile: WorkloadProfile) -> dict[str, Any]:
    """The chosen network's share of the budget, for the advice rules."""
    budget = profile.budget_usd or 0.0
    low = primary.cost.network_usd_low / budget if budget else 0.0
    high = primary.cost.network_usd_high / budget if budget else 0.0
    return {
        "network_share_low": low,
        "network_share_pct": f"{pct(low)}-{pct(high)}",
        "network_low": primary.cost.network_usd_low,
        "network_high": primary.cost.network_usd_high,
        "network_fmt": usd_range(primary.cost.network_usd_low, primary.cost.network_usd_high),
    }


def _performance(primary: Candidate) -> Performance:
    estimate = primary.allreduce
    return Performance(
        allreduce_ms=round(estimate.ms, 2) if estimate else None,
        message_bytes=primary.message_bytes,
        relative_training_throughput=primary.option.relative_training_throughput,
        assumptions=estimate.assumptions if estimate else ["Inference: no all-reduce between servers."],
    )


def _alternative(candidate: Candidate, primary: Candidate) -> Alternative:
    option = candidate.option
    cheaper = candidate.cost.network_usd_high < primary.cost.network_usd_low
    dearer = candidate.cost.network_usd_low > primary.cost.network_usd_high
    price = "cheaper" if cheaper else "dearer" if dearer else "similar in cost"
    own, primary_switches = candidate.topology.total_switches, primary.topology.total_switches
    if own != primary_switches:  # the design, not only the gear, drives the price gap
        price += f" ({own:,} switch{'es' if own != 1 else ''} against the recommended {primary_switches:,})"
    return Alternative(
        technology=candidate.technology,
        name=candidate.fabric.name,
        link_gbps=candidate.fabric.link_gbps,
        network_usd_low=candidate.cost.network_usd_low,
        network_usd_high=candidate.cost.network_usd_high,
        relative_training_throughput=option.relative_training_throughput,
        allreduce_ms=round(candidate.allreduce.ms, 2) if candidate.allreduce else None,
        latency_us=option.latency_us,
        operational_complexity=option.operational_complexity,
        trade_off=f"{price[0].upper()}{price[1:]}; {option.throughput_range}; {option.summary}.",
    )


def _ports(profile: WorkloadProfile, facts: dict[str, Any], primary: Candidate) -> list[Port]:
    """The server's ports: its catalogue layout, with the compute (or, for inference,
    the serving) ports at the speed the fabric was designed for. A single server has
    no compute fabric, so no compute ports."""
    server = catalogue.server_for(profile.gpu_model)
    link = primary.fabric.link_gbps
    inference = None
    if profile.workload == "inference":
        ports = server.inference_ports if server and server.inference_ports else INFERENCE_PORTS_PER_SERVER
        inference = (ports, link or (server.inference_gbps if server and server.inference_gbps else 100))
    return sizing.ports_per_server(
        workload=str(profile.workload),
        gpus_per_node=profile.gpus_per_node,
        compute_gbps=link or (server.compute_gbps if server else 400),
        compute_ports=None if facts["multi_node"] else 0,
        storage=(server.storage_ports, server.storage_gbps) if server else None,
        inband=(server.inband_ports, server.inband_gbps) if server else None,
        oob=(server.oob_ports, server.oob_gbps) if server else None,
        inference=inference,
    )


def _roce_checklist() -> list[RoceSetting]:
    return [
        RoceSetting(setting=check.setting, value=check.value, why=check.why, source=check.source)
        for check in catalogue.roce_checklist()
    ]
