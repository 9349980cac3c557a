"""The user's constraints change the design or its warnings, and the trail says why.

- cost-sensitive: the cheaper fabric at any size when its training throughput stays within
  5 % of the best (Meta trained Llama 3 405B on RoCEv2);
- a budget: checked against what the servers cost (dated, sourced server prices) and the
  network's share of it against the 5-25 % that published builds spend;
- existing Ethernet: the storage and in-band networks join it, their switches reused.
"""

from __future__ import annotations

import pytest

from knowledge import catalogue
from knowledge.pricebook import price_book
from rules.engine import recommend
from rules.models import Recommendation, WorkloadProfile


def advise(**fields) -> Recommendation:
    return recommend(WorkloadProfile(**fields))


def rules(rec: Recommendation) -> list[str]:
    return [r.rule_id for r in rec.explanation]


def statement(rec: Recommendation, rule_id: str) -> str:
    return next(r.statement for r in rec.explanation if r.rule_id == rule_id)


# ------------------------------------------------------------------------- cost-sensitive


def test_cost_sensitive_takes_roce_at_any_size_when_it_keeps_the_throughput():
    job = dict(workload="training", gpu_count=4096, gpu_model="H100", model_params_b=405)
    plain, frugal = advise(**job), advise(**job, cost_sensitive=True)
    assert plain.fabric.technology == "infiniband_ndr"
    assert frugal.fabric.technology == "rocev2"
    roce = next(a for a in plain.alternatives if a.technology == "rocev2")
    assert roce.relative_training_throughput >= 0.95 and roce.network_usd_high < plain.cost.network_usd_high
    why = statement(frugal, "cost-sensitive-cheaper-fabric-close-enough")
    assert "within the 5 %" in why and "Llama 3 405B" in why and "RoCEv2" in why
    # the InfiniBand rule that lost is listed as considered, not as a reason
    assert "training-16plus-infiniband" not in rules(frugal)
    lost = next(c for c in frugal.considered if c.rule_id == "training-16plus-infiniband")
    assert lost.chosen_by == "cost-sensitive-cheaper-fabric-close-enough"


def test_the_throughput_tolerance_is_a_setting_the_decision_and_its_words_follow(monkeypatch):
    """At 0.1 % tolerance RoCEv2's 99.x % is not close enough, and the trail says so with
    the set figure; the default (5 %) is what the test above pins."""
    from core.settings import settings

    monkeypatch.setattr(settings, "throughput_tolerance", 0.001)
    rec = advise(workload="training", gpu_count=4096, gpu_model="H100", model_params_b=405, cost_sensitive=True)
    assert rec.fabric.technology == "infiniband_ndr"
    why = statement(rec, "cost-sensitive-but-network-bound")
    assert "more than the 0.1 % a cost-sensitive design gives up" in why


def test_a_stated_preference_outranks_cost_sensitivity():
    rec = advise(
        workload="training",
        gpu_count=4096,
        gpu_model="H100",
        model_params_b=405,
        cost_sensitive=True,
        prefer="infiniband",
    )
    assert rec.fabric.technology == "infiniband_ndr"
    assert "cost-sensitive-cheaper-fabric-close-enough" not in rules(rec)


def test_cost_sensitive_keeps_infiniband_where_it_is_also_the_cheaper_network():
    # GB300's XDR fabric on 144-port Q3400s is cheaper than 800GbE RoCE on 64-port SN5600s
    rec = advise(workload="training", gpu_count=4096, gpu_model="GB300", model_params_b=405, cost_sensitive=True)
    roce = next(a for a in rec.alternatives if a.technology == "rocev2")
    assert rec.fabric.technology == "infiniband_xdr" and roce.network_usd_low >= rec.cost.network_usd_low
    assert "also the cheaper network" in statement(rec, "cost-sensitive-infiniband-is-cheaper")


# ----------------------------------------------------------------------------- budgets


def test_every_catalogued_server_has_a_dated_sourced_price_estimates_marked():
    book = price_book()
    for server in catalogue.servers():
        price = book.server(server.model)
        assert price is not None, server.model
        assert price.date and price.source and 0 < price.usd[0] <= price.usd[1]
        assert price.estimate == price.source.startswith("Fabric Advisor estimate"), server.model
    h100 = book.server("DGX H100")
    assert h100 is not None and h100.usd[0] == 310_000 and "Freakonomics" in h100.source and not h100.estimate
    assert book.date == max(p.date for p in book.prices.values())  # server prices do not date the network parts


def test_a_budget_that_cannot_buy_the_servers_is_warned_with_the_figure():
    rec = advise(workload="training", gpu_count=1024, gpu_model="H100", budget_usd=5_000_000)
    warning = next(w for w in rec.warnings if "does not buy the servers" in w)
    assert "1,024 H100 GPUs in 128 servers" in warning and "$310K" in warning and "$39.68M" in warning
    assert "$5M budget" in warning
    assert "budget-does-not-buy-servers" in rules(rec)
    enough = advise(workload="training", gpu_count=1024, gpu_model="H100", budget_usd=60_000_000)
    assert not any("does not buy the servers" in w for w in enough.warnings)


def test_rack_scale_systems_are_bought_by_the_rack():
    rec = advise(workload="training", gpu_count=576, gpu_model="GB200", budget_usd=10_000_000)
    warning = next(w for w in rec.warnings if "does not buy the servers" in w)
    assert "8 NVL72 racks" in warning and "$2M-$3M each" in warning


def test_a_network_share_outside_5_to_25_percent_is_flagged_with_the_reason():
    tight = advise(workload="training", gpu_count=1024, gpu_model="H100", budget_usd=5_000_000)
    assert "network-share-above-typical" in rules(tight)
    assert any("above the 5-25 %" in w and "Freakonomics" in w for w in tight.warnings)
    loose = advise(workload="training", gpu_count=1024, gpu_model="H100", budget_usd=500_000_000)
    assert any("below the 5-25 %" in w for w in loose.warnings)
    typical = advise(workload="training", gpu_count=1024, gpu_model="H100", budget_usd=45_000_000)
    assert not any("5-25 %" in w for w in typical.warnings)


def test_without_a_budget_the_network_is_put_beside_the_servers():
    rec = advise(workload="training", gpu_count=1024, gpu_model="H100")
    text = statement(rec, "network-share-of-cluster")
    assert "128 servers" in text and "$310K" in text and "of servers plus network" in text


def test_the_guides_cost_figure_is_quoted_whole():
    rec = advise(workload="training", gpu_count=128, gpu_model="H100", model_params_b=70, budget_usd=20_000_000)
    text = " ".join(r.statement for r in rec.explanation)
    assert "about 4 % of a $5M cluster" not in text
    assert "$200K premium on a $5M cluster (about 4 % of its cost)" in text


# -------------------------------------------------------------------- existing Ethernet


@pytest.mark.parametrize("gpu", ["H100", "MI300X", "GB200"])
def test_existing_ethernet_carries_storage_and_in_band_and_says_so(gpu):
    job = dict(workload="training", gpu_count=1152, gpu_model=gpu)
    built, reused = advise(**job), advise(**job, existing_ethernet=True)
    lines = [line for line in reused.bill_of_materials if line.reused]
    # GB200 runs storage and in-band on one converged fabric (NVIDIA DGX SuperPOD GB200 RA)
    expected = {"storage"} if gpu == "GB200" else {"storage", "in_band"}
    assert lines and {line.fabric for line in lines} == expected
    assert all(line.usd_high == 0 for line in lines)
    assert any(line.category == "switch" for line in lines)
    assert not any(line.reused for line in reused.bill_of_materials if line.fabric in ("compute", "out_of_band"))
    assert reused.cost.network_usd_high < built.cost.network_usd_high
    assert reused.cost.fabric("compute") == built.cost.fabric("compute")
    why = statement(reused, "existing-ethernet-reused")
    switches = sum(line.quantity for line in lines if line.category == "switch")
    assert f"their {switches:,} switches" in why and "reused, not bought" in why
    assert any("existing Ethernet" in a for a in reused.cost.assumptions)
