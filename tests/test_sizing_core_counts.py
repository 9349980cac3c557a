"""Core switches by what the uplinks need: ceil(spine-core cables / core radix), the core
planes sharing switches in groups where one plane alone would leave ports free (issue 22,
"Core counts rounded up"). Each case runs through the real `recommend` path and is then
wired port by port and checked on the graph: no port used twice, no switch over its radix,
every NIC port cabled, and bisection by max-flow equal to the stated one.

Every NVIDIA DGX SuperPOD row on 64-port NDR switches has core = GPUs / 64 (B200 RA: 16 SU =
64 core, 32 SU = 128, 64 SU = 256); rounding each plane's core switches up to a divisor of the
spine uplinks gave 512 where 384 carry 24,576 H100s.
"""

from __future__ import annotations

from collections import Counter

import pytest

from rules.engine import recommend
from rules.models import Recommendation, WorkloadProfile
from rules.physical import checks
from rules.physical.floor import resolve
from rules.physical.graph import Layout, NotWirable, build_graph
from rules.platform import platform_for
from rules.sizing import size_fat_tree
from rules.sizing.fabric import core_grouping, plane_cables


def designed(gpus: int, gpu: str, prefer: str | None = None) -> Recommendation:
    fields: dict[str, object] = {"workload": "training", "gpu_count": gpus, "gpu_model": gpu}
    if prefer:
        fields["prefer"] = prefer
    return recommend(WorkloadProfile.model_validate(fields))


def spine_core(rec: Recommendation) -> int:
    return next(c.count for c in rec.topology.cables if c.tier == "spine-core")


def wired_and_checked(rec: Recommendation, gpu: str) -> Counter[str]:
    platform = platform_for(gpu)
    graph = build_graph(Layout.of(rec.topology, platform), resolve(platform))
    assert checks.problems(graph, rec.topology.bisection_gbps) == []
    return Counter(kind for _, kind in graph.nodes(data="kind"))


@pytest.mark.slow  # a 24k-GPU graph; make test runs it, make check leaves it out
def test_24576_h100_get_384_core_switches_as_every_superpod_row_has_gpus_over_64():
    rec = designed(24576, "H100")
    t = rec.topology
    assert rec.fabric.switch_model == "NVIDIA Quantum-2 QM9700"
    assert (t.leaf_switches, t.spine_switches, t.core_switches) == (768, 768, 384)
    assert t.core_switches == 24576 // 64 == spine_core(rec) // 64
    kinds = wired_and_checked(rec, "H100")
    assert (kinds["leaf"], kinds["spine"], kinds["core"]) == (768, 768, 384)


def test_4608_gb200_on_infiniband_get_72_core_switches_shared_by_groups_of_four_planes():
    rec = designed(4608, "GB200", "infiniband")
    t = rec.topology
    assert (t.leaf_switches, t.spine_switches, t.core_switches) == (144, 144, 72)
    assert spine_core(rec) == 4608 == 72 * 64
    # a plane carries 144 cables (2.25 switches): four planes fill nine switches exactly
    assert any("8 group(s) of 4" in note for note in t.notes)
    kinds = wired_and_checked(rec, "GB200")
    assert kinds["core"] == 72


@pytest.mark.slow
def test_100k_gpus_on_rocev2_get_784_core_switches_not_832():
    rec = designed(100000, "H100", "rocev2")
    t = rec.topology
    assert (t.leaf_switches, t.spine_switches, t.core_switches) == (1568, 1568, 784)
    assert spine_core(rec) == 100352 == 784 * 128
    assert any("16 group(s) of 4" in note for note in t.notes)
    kinds = wired_and_checked(rec, "H100")
    assert kinds["core"] == 784


def test_100k_gpus_on_rocev2_core_arithmetic_fills_every_core_port():
    # 24 full pods of 64 spines and a partial pod of 32 spines, 64 uplinks each:
    # every plane carries 24 x 64 + 2,048 / 64 = 1,568 cables, 12.25 switches of 128 ports;
    # 13 a plane would be 832; four planes together fill 49, 16 groups = 784.
    per_plane = plane_cables(24, 64, 32 * 64, 64)
    assert set(per_plane) == {1568}
    assert core_grouping(per_plane, 128) == (16, 784)
    assert core_grouping(per_plane[:1], 128) == (1, 13)


def test_where_no_grouping_fills_the_core_the_notes_say_which_ports_are_free():
    t = size_fat_tree(3000, 64, 400)  # 94 leaves: 3,008 spine-core cables, exactly 47 switches
    assert t.core_switches == 47
    odd = size_fat_tree(2200, 64, 400)  # 69 leaves: 2,208 cables = 34.5 switches
    assert odd.core_switches == 35
    assert any("core port(s) are left free" in note and "not a whole number" in note for note in odd.notes)


def test_too_few_core_switches_cannot_be_wired():
    rec = designed(4608, "GB200", "infiniband")
    fewer = rec.topology.model_copy(update={"core_switches": 71})
    platform = platform_for("GB200")
    with pytest.raises(NotWirable):
        build_graph(Layout.of(fewer, platform), resolve(platform))
