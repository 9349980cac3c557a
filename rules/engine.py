"""The rules engine: profile in, explained recommendation out.

Order of work: derive facts, let the fabric rules pick a family, design and size every
candidate family the same way, let the budget rules weigh the prices, then the advice
rules add configuration and notes. Every fired rule is kept with its statement and
source; that list is the recommendation's explanation.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

from core.settings import settings
from knowledge import fabric_settings
from rules import pricing, sizing, traffic, zoning
from rules.design import Candidate, design, fabric_ports
from rules.facts import derive, pct, platform_facts, usd, usd_range
from rules.growth import growth_of
from rules.models import (
    Alternative,
    Considered,
    FabricConfiguration,
    FabricSetting,
    Performance,
    Port,
    Reason,
    Recommendation,
    RoceSetting,
    WorkloadProfile,
)
from rules.platform import Platform, platform_for
from rules.rulebook import Fired, decisions, evaluate
from rules.servers import resolve

NETWORK_FAMILIES = ("infiniband", "rocev2", "ethernet")
SAME_ALLREDUCE = 0.02  # all-reduce times within 2 %: the fabric does not change the job


def recommend(profile: WorkloadProfile) -> Recommendation:
    """The explained recommendation for a complete workload profile.

    Every candidate fabric is designed and timed on the job before the fabric rules run,
    so the rules can weigh what each fabric does to a training step.

    The profile is first resolved against the catalogue (`rules.servers.resolve`):
    GPUs per node from the named server, and a check that they fit it (pydantic's
    ValidationError when they do not)."""
    profile = resolve(profile)
    platform = platform_for(profile.gpu_model)  # resolved once; every stage reads this record
    facts = derive(profile, platform)
    facts.update(platform_facts(platform, facts))
    job = traffic.traffic_for(profile, platform) if facts["training"] else None
    families = NETWORK_FAMILIES if facts["multi_node"] else ("nvlink_only",)
    candidates = {family: design(family, facts, profile, job, platform) for family in families}
    designed = dict(candidates)
    if profile.existing_ethernet:
        candidates = {family: _on_site_ethernet(c, profile) for family, c in candidates.items()}
    throughput = _relative_throughput(candidates)
    facts.update(_traffic_facts(candidates, throughput, job))

    fabric_fired = evaluate("fabric", facts)
    chosen = decisions(fabric_fired)["fabric"] if fabric_fired else "infiniband"
    facts.update(_price_facts(candidates, profile), **_server_facts(profile, platform), fabric=chosen)
    budget_fired = evaluate("budget", facts)
    final = decisions(fabric_fired + budget_fired)["fabric"] if fabric_fired else chosen
    facts["fabric"] = final
    primary = candidates[final]
    facts.update(_share_facts(primary, profile, platform), **_reuse_facts(designed[final], primary, profile, platform))

    configuration = _fabric_configuration(primary, profile, platform)
    advice_fired = evaluate("advice", facts)
    advice = decisions(advice_fired)
    fired = fabric_fired + primary.fired + budget_fired + advice_fired
    explanation, considered, warnings = trail(fired, {**decisions(primary.fired), **advice, "fabric": final})

    return Recommendation(
        profile=profile,
        fabric=primary.fabric,
        topology=primary.topology,
        ports_per_server=_ports(profile, platform, facts, primary),
        node_word=facts["node_word"],
        cost=primary.cost,
        performance=_performance(primary, throughput[final], job),
        roce_configuration=_roce_settings(configuration) if advice.get("roce_checklist") else [],
        fabric_configuration=configuration,
        alternatives=[
            *(_alternative(c, primary, throughput[f]) for f, c in candidates.items() if f != final),
            *_oversubscribed(primary, candidates, facts, profile, job, platform),
        ],
        bill_of_materials=primary.bill_of_materials,
        explanation=explanation,
        considered=considered,
        warnings=warnings,
        growth=growth_of(designed[final], profile, platform),
    )


def trail(fired: list[Fired], final: dict[str, Any]) -> tuple[list[Reason], list[Considered], list[str]]:
    """The recommendation's trail: what holds for the design, and what was weighed and not taken.

    A rule whose decision lost to a higher-priority one (an HDR rule beside the NDR one that
    won) describes a design that was not built: its statement would read as the tool's word,
    so it is listed apart, as an option considered with why not, and its warning is dropped."""
    explanation: list[Reason] = []
    considered: list[Considered] = []
    warnings: list[str] = []
    for item in fired:
        lost = next(((k, v) for k, v in item.rule.decide.items() if k in final and final[k] != v), None)
        if lost is None:
            explanation.append(Reason(rule_id=item.rule.id, statement=item.statement, source=item.rule.source))
            if item.warning:
                warnings.append(item.warning)
            continue
        key, value = lost
        winner = next(f for f in fired if f.rule.decide.get(key) == final[key])
        considered.append(
            Considered(
                rule_id=item.rule.id,
                option=decision_words(key, value),
                chosen=decision_words(key, final[key]),
                chosen_by=winner.rule.id,
                why_not=f"{winner.rule.id} takes precedence: {winner.statement}",
                source=item.rule.source,
            )
        )
    return explanation, considered, warnings


#: What each decision means, in a customer's words (rules/facts.yaml lists the decisions).
_DECISION_WORDS: dict[str, dict[Any, str]] = {
    "fabric": {
        "nvlink_only": "no compute fabric (the GPUs share one scale-up domain)",
        "infiniband": "InfiniBand",
        "rocev2": "RoCEv2",
        "ethernet": "standard Ethernet",
    },
    "ib_generation": {
        "hdr": "HDR InfiniBand (200 Gb/s)",
        "ndr": "NDR InfiniBand (400 Gb/s)",
        "xdr": "XDR InfiniBand (800 Gb/s)",
    },
    "topology": {
        "single_node": "no switch fabric",
        "fat_tree": "a fat-tree (Clos)",
        "rail_optimized": "a rail-optimized fabric",
        "dragonfly_plus": "Dragonfly+",
    },
    "roce_checklist": {True: "the RoCE configuration checklist"},
}


def decision_words(key: str, value: Any) -> str:
    """A decision as a customer reads it: 'HDR InfiniBand (200 Gb/s)', '400GbE links'."""
    if key == "ethernet_gbps":
        return f"{value}GbE links (at most what the NICs carry)"
    return _DECISION_WORDS.get(key, {}).get(value, f"{key.replace('_', ' ')} {value}")


REUSE_ASSUMPTION = (
    "The storage and in-band networks run on the site's existing Ethernet: their switches and switch-to-switch "
    "links are listed as reused at $0 (no new power or space); the servers' own links to them are bought."
)


def _on_site_ethernet(candidate: Candidate, profile: WorkloadProfile) -> Candidate:
    """A candidate whose storage and in-band networks join the site's existing Ethernet."""
    if not candidate.bill_of_materials:
        return candidate
    lines = pricing.reuse_site_ethernet(candidate.bill_of_materials)
    cost = sizing.network_cost(
        lines,
        gpus=profile.gpu_count or 1,
        price_book_date=candidate.cost.price_book_date,
        assumptions=[*candidate.cost.assumptions, REUSE_ASSUMPTION],
    )
    return dataclasses.replace(candidate, bill_of_materials=lines, cost=pricing.with_budget(cost, profile.budget_usd))


def _reuse_facts(
    designed: Candidate, primary: Candidate, profile: WorkloadProfile, platform: Platform
) -> dict[str, Any]:
    """What reusing the site's Ethernet took out of the chosen design, for the advice rules."""
    reused = [line for line in primary.bill_of_materials if line.reused]
    switches = sum(line.quantity for line in reused if line.category == "switch")
    low = designed.cost.network_usd_low - primary.cost.network_usd_low
    high = designed.cost.network_usd_high - primary.cost.network_usd_high
    links = sum(
        p.count
        for p in pricing.server_ports(profile, platform, 0, 0)
        if str(p.role) in ("storage", "inband_management")
    )
    return {
        "reused_switches": switches,
        "reused_saving_fmt": usd_range(low, high),
        "reused_links": links * (profile.node_count or 1),
    }


def _server_facts(profile: WorkloadProfile, platform: Platform) -> dict[str, Any]:
    """What the servers cost at the price book's server prices, and the network's share of
    servers plus network, for the budget rules (a budget that cannot buy the servers, a
    network share outside what published builds spend)."""
    servers = pricing.servers_cost(profile, platform)
    if servers is None:
        return {
            "servers_priced": False,
            "servers_usd_low": 0.0,
            "servers_usd_high": 0.0,
            "servers_fmt": "",
            "server_price_fmt": "",
            "server_units_fmt": "",
            "server_price_basis": "",
        }
    units = f"{servers.units:,} {servers.unit_word}{'s' if servers.units != 1 else ''}"
    kind = "estimate" if servers.estimate else "published price"
    return {
        "servers_priced": True,
        "servers_usd_low": servers.usd_low,
        "servers_usd_high": servers.usd_high,
        "servers_fmt": usd_range(servers.usd_low, servers.usd_high),
        "server_price_fmt": usd_range(servers.unit_usd_low, servers.unit_usd_high),
        "server_units_fmt": units,
        "server_price_basis": f"the price book's {kind} of {servers.date} for a {servers.server}",
    }


def _compute_usd(candidate: Candidate) -> tuple[float, float]:
    """The compute fabric's cost range: what differs between the candidate families."""
    part = candidate.cost.fabric("compute")
    return (part.usd_low, part.usd_high) if part else (0.0, 0.0)


def _price_facts(candidates: dict[str, Candidate], profile: WorkloadProfile) -> dict[str, Any]:
    """Facts the budget and advice rules weigh: the InfiniBand premium over RoCEv2 (in
    dollars, as a ratio of the two compute fabrics' bills of materials, and as a share of
    the budget) and each candidate network's price."""
    facts: dict[str, Any] = {}
    ib, roce = candidates.get("infiniband"), candidates.get("rocev2")
    premium_low = premium_high = ratio = 0.0
    if ib and roce:
        premium_low = max(0.0, ib.cost.network_usd_low - roce.cost.network_usd_low)
        premium_high = max(0.0, ib.cost.network_usd_high - roce.cost.network_usd_high)
        ratio = sizing.cost_ratio(_compute_usd(ib), _compute_usd(roce))
    budget = profile.budget_usd or 0.0
    premium_share = (premium_low + premium_high) / 2 / budget if budget else 0.0
    facts.update(
        ib_premium_low_usd=usd(premium_low),
        ib_premium_high_usd=usd(premium_high),
        ib_premium_share=premium_share,
        ib_premium_share_pct=pct(premium_share),
        ib_cost_ratio=ratio,
        ib_cost_ratio_fmt=f"{ratio:.1f}x",
        ib_compute_fmt=usd_range(*_compute_usd(ib)) if ib else "",
        rocev2_compute_fmt=usd_range(*_compute_usd(roce)) if roce else "",
    )
    # each candidate network's price, for a stated network budget ("$1M for the fabric")
    for family in NETWORK_FAMILIES:
        cost = candidates[family].cost if family in candidates else None
        facts[f"{family}_network_low"] = cost.network_usd_low if cost else 0.0
        facts[f"{family}_network_fmt"] = usd_range(cost.network_usd_low, cost.network_usd_high) if cost else ""
    return facts


def _share_facts(primary: Candidate, profile: WorkloadProfile, platform: Platform) -> dict[str, Any]:
    """The chosen network's share of the budget, for the advice rules."""
    budget = profile.budget_usd or 0.0
    low = primary.cost.network_usd_low / budget if budget else 0.0
    high = primary.cost.network_usd_high / budget if budget else 0.0
    servers = pricing.servers_cost(profile, platform)
    network_mid = (primary.cost.network_usd_low + primary.cost.network_usd_high) / 2
    cluster_mid = network_mid + ((servers.usd_low + servers.usd_high) / 2 if servers else 0.0)
    cluster_share = network_mid / cluster_mid if cluster_mid else 0.0
    return {
        "network_cluster_share": cluster_share,
        "network_cluster_share_pct": pct(cluster_share),
        "network_share_high": high,
        "network_share_low": low,
        "network_share_pct": f"{pct(low)}-{pct(high)}",
        "network_low": primary.cost.network_usd_low,
        "network_high": primary.cost.network_usd_high,
        "network_fmt": usd_range(primary.cost.network_usd_low, primary.cost.network_usd_high),
    }


def _relative_throughput(candidates: dict[str, Candidate]) -> dict[str, float]:
    """Each candidate's training throughput against InfiniBand's: the ratio of step times.
    Without a training step (inference) or an InfiniBand candidate, every fabric is 1.0."""
    ib = candidates.get("infiniband")
    reference = ib.step.step_ms if ib and ib.step else None
    return {
        family: round(reference / c.step.step_ms, 4) if reference and c.step and c.step.step_ms else 1.0
        for family, c in candidates.items()
    }


def _ms(value: float) -> str:
    return f"{value / 1e3:,.2f} s" if value >= 1000 else f"{value:,.0f} ms" if value >= 10 else f"{value:.1f} ms"


def _traffic_facts(
    candidates: dict[str, Candidate], throughput: dict[str, float], job: traffic.Traffic | None
) -> dict[str, Any]:
    """What the step-time model says about the fabrics, for the rules' conditions and statements."""
    ib, roce = candidates.get("infiniband"), candidates.get("rocev2")
    facts: dict[str, Any] = {
        family + suffix: value
        for family in NETWORK_FAMILIES
        for suffix, value in (
            ("_relative", throughput.get(family, 1.0)),
            ("_relative_pct", pct(throughput.get(family, 1.0))),
            ("_loss_pct", pct(max(0.0, 1 - throughput.get(family, 1.0)))),
        )
    }
    same = network_sensitive = False
    step_fmt = exposed_fmt = compute_fmt = exposed_share_pct = allreduce_fmt = ""
    bound_by = ""
    if ib and roce and ib.allreduce and roce.allreduce and ib.step:
        # the same only when the all-reduce crosses servers and something inside them bounds it
        # (one data-parallel replica has no all-reduce, but its pipeline still uses the fabric)
        same = (
            ib.allreduce.nodes > 1
            and ib.allreduce.bottleneck == "nvlink"
            and abs(roce.allreduce.ms - ib.allreduce.ms) <= SAME_ALLREDUCE * ib.allreduce.ms
        )
        network_sensitive = 1 - throughput["rocev2"] >= settings.throughput_tolerance
        step = ib.step
        step_fmt, exposed_fmt, compute_fmt = _ms(step.step_ms), _ms(step.exposed_ms), _ms(step.compute_ms)
        allreduce_fmt, exposed_share_pct, bound_by = _ms(ib.allreduce.ms), pct(step.exposed_share), step.bound_by
    allreduce_bound_by = ""
    if ib and ib.allreduce and job:
        allreduce_bound_by = f"the {job.local_name}" if ib.allreduce.bottleneck == "nvlink" else "the network"
    plan = job.plan if job else None
    facts.update(
        throughput_floor=1 - settings.throughput_tolerance,
        throughput_tolerance_pct=f"{settings.throughput_tolerance * 100:g} %",
        plan_does_not_fit=bool(plan and not plan.fits),
        plan_fmt=f"TP {plan.tp} x PP {plan.pp} x DP {plan.dp:,}" if plan else "",
        plan_state_gb=f"{plan.state_gb_per_gpu:,.1f} GB" if plan else "",
        plan_budget_gb=f"{plan.memory_budget_gb:,.0f} GB of {plan.gpu_memory_gb:g} GB" if plan else "",
        allreduce_bound_by=allreduce_bound_by,
        allreduce_same_on_every_fabric=same,
        network_sensitive=network_sensitive,
        step_fmt=step_fmt,
        exposed_fmt=exposed_fmt,
        compute_fmt=compute_fmt,
        allreduce_fmt=allreduce_fmt,
        exposed_share_pct=exposed_share_pct,
        bound_by=bound_by,
    )
    return facts


def _performance(primary: Candidate, relative: float, job: traffic.Traffic | None) -> Performance:
    estimate = primary.allreduce
    assumptions = ["Inference: no all-reduce between servers."]
    if estimate and job:
        plan = job.plan.arithmetic if job.plan else []
        assumptions = [*plan, *estimate.assumptions, *job.assumptions]
    return Performance(
        allreduce_ms=round(estimate.ms, 2) if estimate else None,
        message_bytes=primary.message_bytes,
        relative_training_throughput=relative,
        plan=job.plan if job else None,
        step=primary.step,
        in_network_allreduce_ms=round(estimate.in_network_ms, 2) if estimate and estimate.in_network_ms else None,
        assumptions=assumptions,
    )


#: An alternative within this factor of the recommended network's cost is "similar in cost".
SIMILAR_COST = 0.1


def _alternative(candidate: Candidate, primary: Candidate, throughput: float) -> Alternative:
    """A candidate family as an alternative, priced the same way as the choice: its cost
    relative to the recommended network is the ratio of the two BOM totals' midpoints."""
    option = candidate.option
    relative = sizing.cost_ratio(
        (candidate.cost.network_usd_low, candidate.cost.network_usd_high),
        (primary.cost.network_usd_low, primary.cost.network_usd_high),
    )
    if relative and relative < 1 - SIMILAR_COST:
        price = f"cheaper ({relative:.2f}x the recommended network's cost)"
    elif relative > 1 + SIMILAR_COST:
        price = f"dearer ({relative:.2f}x the recommended network's cost)"
    else:
        price = "similar in cost"
    own, primary_switches = candidate.topology.total_switches, primary.topology.total_switches
    if own != primary_switches:  # the design, not only the gear, drives the price gap
        price += f", {own:,} compute switch{'es' if own != 1 else ''} against the recommended {primary_switches:,}"
    return Alternative(
        technology=candidate.technology,
        name=candidate.fabric.name,
        link_gbps=candidate.fabric.link_gbps,
        network_usd_low=candidate.cost.network_usd_low,
        network_usd_high=candidate.cost.network_usd_high,
        relative_training_throughput=throughput,
        relative_cost=relative or None,
        allreduce_ms=round(candidate.allreduce.ms, 2) if candidate.allreduce else None,
        step=candidate.step,
        latency_us=option.latency_us,
        operational_complexity=option.operational_complexity,
        trade_off=f"{price[0].upper()}{price[1:]}; {_throughput_phrase(candidate, throughput)}; {option.summary}.",
    )


def _oversubscribed(
    primary: Candidate,
    candidates: dict[str, Candidate],
    facts: dict[str, Any],
    profile: WorkloadProfile,
    job: traffic.Traffic | None,
    platform: Platform,
) -> list[Alternative]:
    """The recommended fabric in Meta's AI zones, 7:1 above zones of 3,072 GPUs
    (rules/zoning.py), offered when the customer stated no oversubscription and it saves at
    least `zoning.MIN_SAVING` of the whole network's cost; its words state the saving and
    what the zones cost a job."""
    if profile.oversubscription is not None or primary.topology.tiers < 2:
        return []
    zoned_profile = profile.model_copy(
        update={
            "oversubscription": zoning.PUBLISHED_RATIO,
            "zone_gpus": profile.zone_gpus or zoning.PUBLISHED_ZONE_GPUS,
        }
    )
    candidate = design(primary.family, facts, zoned_profile, job, platform)
    if not candidate.topology.zones:
        return []
    if profile.existing_ethernet:
        candidate = _on_site_ethernet(candidate, profile)
    relative = sizing.cost_ratio(
        (candidate.cost.network_usd_low, candidate.cost.network_usd_high),
        (primary.cost.network_usd_low, primary.cost.network_usd_high),
    )
    saving = 1 - relative
    if saving < zoning.MIN_SAVING:
        return []
    ib = candidates.get("infiniband")
    reference = ib.step.step_ms if ib and ib.step else None
    throughput = round(reference / candidate.step.step_ms, 4) if reference and candidate.step else 1.0
    alternative = _alternative(candidate, primary, throughput)
    zone_gpus = zoning.zone_size_gpus(candidate.topology, platform, profile.gpu_count or 1)
    topology = candidate.topology
    bisection = topology.bisection_gbps / primary.topology.bisection_gbps if primary.topology.bisection_gbps else 0
    own = candidate.step.step_ms if candidate.step else 0.0
    kept = (primary.step.step_ms / own) if primary.step and own else 1.0
    job_words = (
        f"on this job the step-time model keeps {pct(min(1.0, kept))} of the non-blocking design's training "
        f"throughput (exposed communication {_ms(candidate.step.exposed_ms)} of a {_ms(own)} step)"
        if candidate.step
        else "inference: traffic between zones shares the thinner layer"
    )
    trade_off = (
        f"Saves {pct(saving)} of the network's cost (an oversubscribed design is offered from "
        f"{zoning.MIN_SAVING * 100:g} %): {alternative.trade_off.split('; ')[0]}; "
        f"{zoning.cost_words(topology, zone_gpus)}; bisection {pct(bisection)} of the non-blocking design's; "
        f"{job_words}."
    )
    return [
        alternative.model_copy(
            update={
                "name": candidate.fabric.name,
                "trade_off": trade_off[0].upper() + trade_off[1:],
                "oversubscription": topology.zone_oversubscription,
                "zone_gpus": zone_gpus,
            }
        )
    ]


def _throughput_phrase(candidate: Candidate, relative: float) -> str:
    """What the step-time model says about this fabric, beside what the guide says."""
    option = candidate.option
    if candidate.step is None:
        return option.throughput_range
    step = candidate.step
    return (
        f"{pct(relative)} of InfiniBand's training throughput on this job (exposed communication "
        f"{_ms(step.exposed_ms)} of a {_ms(step.step_ms)} step; the guide: {option.throughput_range})"
    )


def _ports(profile: WorkloadProfile, platform: Platform, facts: dict[str, Any], primary: Candidate) -> list[Port]:
    """The server's ports at the speed the chosen fabric was designed for."""
    return pricing.server_ports(profile, platform, fabric_ports(facts), primary.fabric.link_gbps)


FABRIC_KINDS = {"rocev2": "roce", "ethernet": "ethernet"}
VALIDATION_MESSAGE_BYTES = 8 * 2**30  # nccl-tests `-b 8G -e 8G`
VALIDATION_SOURCE = (
    "Fabric Advisor all-reduce model (rules/sizing/allreduce.py), within 20 % of the published nccl-tests results "
    "in knowledge/sources/nccl_results.yaml (NVIDIA/nccl-tests issue #290: 46-48 GB/s per NDR NIC)"
)


def _fabric_configuration(
    primary: Candidate, profile: WorkloadProfile, platform: Platform
) -> FabricConfiguration | None:
    """The settings the chosen fabric needs, with values, and what to expect when it is tested."""
    if primary.technology == "nvlink_only":
        return None
    kind = FABRIC_KINDS.get(str(primary.technology), "infiniband")
    library = platform.collective_library
    return FabricConfiguration(
        fabric=kind,
        switch_family=primary.fabric.switch_model or "any",
        settings=list(_settings(kind, primary.fabric.switch_model, primary.fabric.link_gbps, library)),
        validation=_validation_targets(primary, profile, platform),
    )


@functools.lru_cache(maxsize=64)
def _settings(kind: str, switch_model: str | None, link_gbps: int, library: str = "NCCL") -> tuple[FabricSetting, ...]:
    """A fabric's settings for its switch family and the GPUs' collective library (RCCL's
    on AMD, never NCCL's NVLS or SHARP plugin), the RoCE headroom sized for its links."""
    family = fabric_settings.switch_family(switch_model)
    settings = [
        FabricSetting(area=s.area, setting=s.setting, value=s.value, why=s.why, source=s.source)
        for s in fabric_settings.settings(kind, family, library)
    ]
    if kind == "roce":
        settings.insert(2, _headroom_setting(link_gbps))
    return tuple(settings)


def _headroom_setting(link_gbps: int) -> FabricSetting:
    room = fabric_settings.headroom()
    sizes = ", ".join(f"{room.bytes_at(link_gbps, m) / 1000:,.0f} KB at {m} m" for m in room.cable_m)
    return FabricSetting(
        area="switch",
        setting="PFC headroom",
        value=f"Per lossless port at {link_gbps} Gb/s: {sizes} of cable (2 x {room.mtu_bytes:,}-byte frames "
        f"+ cable round trip at {room.propagation_ns_per_m:g} ns/m + the peer's response time, at line rate).",
        why="What still arrives after PAUSE must fit the port's buffer, or the lossless class drops packets.",
        source=room.source,
    )


def _validation_targets(primary: Candidate, profile: WorkloadProfile, platform: Platform) -> list[FabricSetting]:
    """nccl-tests (rccl-tests on AMD) and perftest figures the customer can check once the
    fabric is cabled."""
    link = primary.fabric.link_gbps
    nic_busbw, latency, _ = traffic.nic_link(primary.technology, link)
    scale_up = platform.scale_up
    local_busbw, local_latency, local_name = scale_up.busbw_gbytes, scale_up.latency_us, scale_up.name
    gpus = profile.gpu_count or 1
    per_domain = traffic.scale_up_domain(profile, platform)[1]
    whole = sizing.allreduce_estimate(
        VALIDATION_MESSAGE_BYTES, gpus, per_domain, local_busbw, nic_busbw, local_latency, latency
    )
    bench = f"{platform.collective_tests} all_reduce_perf"  # rccl-tests on AMD
    one = min(per_domain, gpus)
    perftest = "ib_write_bw" + (" -x 3 (RoCEv2 GID)" if primary.technology == "rocev2" else "")
    return [
        FabricSetting(
            area="validation",
            setting=f"{bench} -b 8G -e 8G on {one} GPUs of one {'rack' if platform.rack_scale else 'server'}",
            value=f"busbw about {local_busbw:g} GB/s (the {local_name})",
            why=f"Checks {scale_up.words} inside one {'NVL72 rack' if platform.rack_scale else 'server'} "
            "before the network is blamed.",
            source=scale_up.source,
        ),
        FabricSetting(
            area="validation",
            setting=f"{bench} -b 8G -e 8G on all {gpus:,} GPUs (NCCL_ALGO=Ring"
            + ("; RCCL reads the NCCL_ variables)" if platform.collective_library == "RCCL" else ")"),
            value=f"busbw about {whole.effective_busbw_gbytes:,.0f} GB/s (±20 %), "
            f"{scale_up.words if whole.bottleneck == 'nvlink' else 'network'}-bound",
            why="The whole fabric carrying a ring at each NIC's speed; far below means a bad link, route or setting.",
            source=VALIDATION_SOURCE,
        ),
        FabricSetting(
            area="validation",
            setting=f"perftest {perftest} between two servers, per link",
            value=f"at least {nic_busbw * 8:,.0f} Gb/s of the {link} Gb/s line rate on every compute link",
            why="One slow link (a bad cable or optic) holds back every ring through it.",
            source=f"Per-NIC bus bandwidth of {nic_busbw:g} GB/s that nccl-tests reaches on this fabric "
            "(knowledge/sources/links.yaml); RDMA write bandwidth cannot be lower",
        ),
    ]


def _roce_settings(configuration: FabricConfiguration | None) -> list[RoceSetting]:
    """The switch and NIC settings of a RoCE fabric, as the RoCE checklist shows them."""
    if configuration is None:
        return []
    return [
        RoceSetting(setting=s.setting, value=s.value, why=s.why, source=s.source)
        for s in configuration.settings
        if s.area in ("switch", "nic")
    ]
