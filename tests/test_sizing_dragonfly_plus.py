"""Dragonfly+ sizing (Shpiner et al. 2017): fat-tree groups joined all-to-all by global links."""

import pytest

from rules import engine
from rules.models import WorkloadProfile
from rules.sizing import FabricTooLarge, dragonfly_plus_capacity, size_dragonfly_plus


def tier(t, name):
    return next((c.count for c in t.cables if c.tier == name), 0)


def test_a_full_group_holds_k_squared_over_four_hosts_without_global_links():
    t = size_dragonfly_plus(1024, radix=64, link_gbps=400)
    assert (t.leaf_switches, t.spine_switches, t.core_switches, t.tiers) == (32, 32, 0, 2)
    assert tier(t, "group-global") == 0
    assert t.bisection_gbps == 1024 * 400 / 2


def test_two_groups_are_joined_by_all_their_global_ports_at_full_bisection():
    t = size_dragonfly_plus(2048, radix=64, link_gbps=400)
    assert (t.leaf_switches, t.spine_switches) == (64, 64)
    assert tier(t, "group-global") == 1024
    assert t.bisection_gbps == 2048 * 400 / 2
    assert any("groups: ceil(64/32) = 2" in note for note in t.notes)


def test_many_groups_give_about_half_bisection():
    t = size_dragonfly_plus(100_000, radix=64, link_gbps=400)
    assert any("98" in note and "groups" in note for note in t.notes)
    assert 0.45 < t.bisection_gbps / (100_000 * 400 / 2) < 0.55
    assert any("Shpiner" in note for note in t.notes)


def test_capacity_is_hosts_per_group_times_groups():
    assert dragonfly_plus_capacity(64) == 1024 * 1025
    size_dragonfly_plus(1024 * 1025, radix=64, link_gbps=400)
    with pytest.raises(FabricTooLarge) as raised:
        size_dragonfly_plus(1024 * 1025 + 1, radix=64, link_gbps=400)
    assert "1,049,600" in str(raised.value)


@pytest.mark.slow  # a design past the dragonfly limit; make test runs it, make check leaves it out
def test_a_cluster_past_the_first_switchs_dragonfly_limit_is_still_designed():
    """300,000 cost-sensitive A100 GPUs: the HDR family's 40-port switch holds at most
    160,400 endpoints in a Dragonfly+, which used to raise inside the engine; the
    Dragonfly+ step now sizes with the family's first switch that holds every port, or
    keeps the Clos and says why."""
    rec = engine.recommend(
        WorkloadProfile(workload="training", gpu_count=300_000, gpu_model="A100", cost_sensitive=True)
    )
    assert rec.topology.endpoints == 300_000
    assert rec.topology.total_switches > 0
    assert dragonfly_plus_capacity(40) < 300_000  # the switch the old code insisted on
