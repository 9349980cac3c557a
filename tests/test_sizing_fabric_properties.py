"""Properties every sized fabric keeps, checked over many sizes with hypothesis."""

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.models import Topology
from rules.sizing import (
    fat_tree_capacity,
    leaf_port_split,
    rail_optimized_capacity,
    size_dragonfly_plus,
    size_fat_tree,
    size_rail_optimized,
)

radixes = st.sampled_from([8, 36, 40, 64, 128, 144])
ratios = st.sampled_from([1.0, 1.5, 2.0, 3.0, 5.0])


def count(t: Topology, tier: str) -> int:
    return next((c.count for c in t.cables if c.tier == tier), 0)


@st.composite
def fat_trees(draw):
    k = draw(radixes)
    r = draw(ratios)
    e = draw(st.integers(1, fat_tree_capacity(k, 3, r)))
    return e, k, r


@st.composite
def rail_fabrics(draw):
    k = draw(st.sampled_from([40, 64, 144]))
    rails = draw(st.sampled_from([1, 2, 4, 8]))
    nodes = draw(st.integers(1, rail_optimized_capacity(rails, k)))
    return nodes, rails, k


def ports_fit(t: Topology, down_per_leaf: int) -> None:
    """Cables agree with ports: every cable end lands on a switch port that exists."""
    k = t.radix
    node_leaf, leaf_spine, spine_core = count(t, "node-leaf"), count(t, "leaf-spine"), count(t, "spine-core")
    assert node_leaf <= t.leaf_switches * down_per_leaf
    assert node_leaf + 2 * leaf_spine + 2 * spine_core + 2 * count(t, "group-global") <= t.total_switches * k
    if t.tiers >= 2:
        assert leaf_spine <= t.spine_switches * k
        assert leaf_spine % t.leaf_switches == 0  # every leaf cables the same uplinks
    if t.tiers == 3:
        assert spine_core <= t.core_switches * k


@settings(max_examples=300, deadline=None)
@given(fat_trees())
def test_fat_tree_more_endpoints_never_need_fewer_switches(case):
    e, k, r = case
    if e < fat_tree_capacity(k, 3, r):
        assert size_fat_tree(e + 1, k, 400, r).total_switches >= size_fat_tree(e, k, 400, r).total_switches


@settings(max_examples=300, deadline=None)
@given(fat_trees())
def test_fat_tree_gives_every_endpoint_a_port_and_cables_fit_ports(case):
    e, k, r = case
    t = size_fat_tree(e, k, 400, r)
    down = k if t.tiers == 1 else leaf_port_split(k, r)[0]
    assert t.leaf_switches * down >= e
    assert count(t, "node-leaf") == t.endpoints == e
    ports_fit(t, down)


@settings(max_examples=300, deadline=None)
@given(fat_trees())
def test_non_blocking_tiers_carry_at_least_as_much_up_as_down(case):
    e, k, r = case
    t = size_fat_tree(e, k, 400, r)
    if t.tiers >= 2:
        # leaves: up x ratio >= down; exactly non-blocking when the ratio is 1
        down, up = leaf_port_split(k, r)
        assert count(t, "leaf-spine") * down / up >= count(t, "node-leaf")
        assert t.oversubscription == round(max(down / up, 1.0), 3)
        if r == 1.0:
            assert count(t, "leaf-spine") >= count(t, "node-leaf")
    if t.tiers == 3:  # spines are always non-blocking
        assert count(t, "spine-core") >= count(t, "leaf-spine")


@settings(max_examples=300, deadline=None)
@given(rail_fabrics())
def test_rail_optimized_more_nodes_never_need_fewer_switches(case):
    nodes, rails, k = case
    if nodes < rail_optimized_capacity(rails, k):
        bigger = size_rail_optimized(nodes + 1, rails, k)
        assert bigger.total_switches >= size_rail_optimized(nodes, rails, k).total_switches


@settings(max_examples=300, deadline=None)
@given(rail_fabrics())
def test_rail_optimized_gives_every_gpu_port_a_leaf_port_and_is_non_blocking(case):
    nodes, rails, k = case
    t = size_rail_optimized(nodes, rails, k)
    assert count(t, "node-leaf") >= nodes * rails
    if t.tiers == 1:  # the whole cluster on one switch
        assert t.total_switches == 1 and count(t, "node-leaf") <= k
        return
    if t.scalable_units > 1:
        assert t.leaf_switches == rails * t.scalable_units
    else:  # smaller than one SU: whole rails share a leaf
        assert t.leaf_switches <= rails
    assert t.leaf_switches * (k // 2) >= count(t, "node-leaf")
    assert count(t, "leaf-spine") >= count(t, "node-leaf")
    if t.tiers == 3:
        assert count(t, "spine-core") >= count(t, "leaf-spine")
    ports_fit(t, k // 2)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from([16, 40, 64]), st.data())
def test_dragonfly_plus_cables_fit_ports(k, data):
    from rules.sizing import dragonfly_plus_capacity

    e = data.draw(st.integers(1, dragonfly_plus_capacity(k)))
    t = size_dragonfly_plus(e, k, 400)
    assert t.leaf_switches * (k // 2) >= e
    assert count(t, "leaf-spine") >= count(t, "node-leaf")
    assert 0 < t.bisection_gbps <= e * 400 / 2
    ports_fit(t, k // 2)
