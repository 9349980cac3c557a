"""Growth through the engine: what the next scalable unit adds, where the next tier
boundary is (read from the same sizing the design uses, checked against NVIDIA's
SuperPOD tables), and how far a design grows by adding alone."""

from __future__ import annotations

import pytest

from rules import engine
from rules.models import Recommendation, WorkloadProfile


def recommend(gpus: int, model: str, **more: object) -> Recommendation:
    return engine.recommend(WorkloadProfile(workload="training", gpu_count=gpus, gpu_model=model, **more))


@pytest.fixture(scope="module")
def b200() -> Recommendation:
    return recommend(1024, "B200")  # 4 SU, two tiers (B200 RA: 32 leaf / 16 spine)


def test_the_next_su_of_a_b200_superpod_adds_one_leaf_per_rail(b200: Recommendation) -> None:
    growth = b200.growth
    assert growth is not None and growth.unit_gpus == 256
    step = growth.next_step
    assert step is not None
    assert (step.gpus, step.gpus_added, step.servers_added, step.leaf_switches_added) == (1280, 256, 32, 8)
    assert step.switches_added == step.leaf_switches_added + step.spine_switches_added + step.core_switches_added
    compute_switches = [line for line in step.added if line.fabric == "compute" and line.category == "switch"]
    assert sum(line.quantity for line in compute_switches) == step.switches_added
    assert step.cost_added_usd_low > 0


def test_the_tier_boundary_is_where_nvidias_b200_superpod_goes_three_tier(b200: Recommendation) -> None:
    """B200 RA: two tiers up to 8 SU (2,048 GPUs), three from there on."""
    growth = b200.growth
    assert growth is not None
    assert (growth.tiers, growth.tier_limit_gpus, growth.next_tier_gpus) == (2, 2048, 2056)


def test_the_boundary_agrees_with_the_design_at_those_sizes(b200: Recommendation) -> None:
    growth = b200.growth
    assert growth is not None and growth.tier_limit_gpus and growth.next_tier_gpus
    assert recommend(growth.tier_limit_gpus, "B200").topology.tiers == 2
    assert recommend(growth.next_tier_gpus, "B200").topology.tiers == 3


def test_b300_spectrum_x_twin_planes_stay_two_tier_to_16_su() -> None:
    """B300 Spectrum-X RA, Table 3: two tiers up to 16 SU (8,192 GPUs)."""
    growth = recommend(4096, "B300", prefer="rocev2").growth
    assert growth is not None
    assert (growth.tiers, growth.tier_limit_gpus) == (2, 8192)
    assert "each plane" in growth.unit


def test_a_spine_layer_that_must_grow_is_named_as_re_cabling(b200: Recommendation) -> None:
    growth = b200.growth
    assert growth is not None and growth.next_step is not None
    assert growth.grows_without_recabling_to_gpus == 1024
    assert any("spine layer grows" in why for why in growth.next_step.recabling)


def test_filling_a_partly_filled_su_only_adds() -> None:
    growth = recommend(1000, "H100").growth  # 125 servers in 4 SU of 32 slots
    assert growth is not None and growth.next_step is not None
    assert growth.next_step.gpus == 1024
    assert growth.next_step.switches_added == 0
    assert growth.next_step.recabling == []
    assert growth.grows_without_recabling_to_gpus >= 1024


def test_one_server_grows_into_its_first_fabric() -> None:
    growth = recommend(8, "H100").growth
    assert growth is not None
    assert (growth.tiers, growth.next_tier_gpus, growth.next_step) == (0, 16, None)


@pytest.mark.slow  # a 300k-GPU design; make test runs it, make check leaves it out
def test_the_300k_a100_cost_sensitive_design_says_how_it_grows() -> None:
    rec = recommend(300_000, "A100", cost_sensitive=True)
    assert rec.growth is not None and rec.growth.tiers == rec.topology.tiers


def test_b300_xdr_stays_two_tier_to_18_su() -> None:
    """B300-XDR RA, Table 3: 18 SU (1,296 nodes, 10,368 GPUs) is still two tiers."""
    growth = recommend(4608, "B300").growth
    assert growth is not None
    assert (growth.tiers, growth.tier_limit_gpus) == (2, 10368)
