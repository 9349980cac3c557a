"""The topology diagram: `advisor.render.svg.topology_svg(rec)`.

It must be a standalone, well-formed SVG that names the counts and the switch model,
colours each rail once, stays small and fast for huge fabrics, escapes odd text and
gives the same bytes for the same recommendation. Recommendations are built directly
from the models (sizes given in full, so the knowledge package is not needed).
"""

from __future__ import annotations

import time
import xml.etree.ElementTree as ET

import pytest

from advisor.render.svg import topology_svg
from rules.models import (
    CableTier,
    Cost,
    Fabric,
    Performance,
    Port,
    Reason,
    Recommendation,
    Topology,
    TopologyKind,
    WorkloadProfile,
)

SVG = "{http://www.w3.org/2000/svg}"


def make_rec(
    kind: str = "rail_optimized",
    *,
    gpus: int = 1016,
    gpus_per_node: int = 8,
    nodes: int = 127,
    tiers: int = 2,
    rails: int = 8,
    leaf: int = 32,
    spine: int = 16,
    core: int = 0,
    scalable_units: int | None = 4,
    cables: list[CableTier] | None = None,
    technology: str = "infiniband_ndr",
    name: str = "InfiniBand NDR (400 Gb/s)",
    switch_model: str | None = "NVIDIA Quantum-2 QM9700",
    gbps: int = 400,
    gpu_model: str = "H100",
    workload: str = "training",
    oversubscription: float = 1.0,
) -> Recommendation:
    """A recommendation shaped like the engine's (DGX SuperPOD, 4 SUs, by default)."""
    if cables is None:
        cables = [
            CableTier(tier="node-leaf", count=1020, gbps=gbps),
            CableTier(tier="leaf-spine", count=1024, gbps=gbps),
        ]
    return Recommendation(
        profile=WorkloadProfile(
            workload=workload,
            gpu_count=gpus,
            gpus_per_node=gpus_per_node,
            node_count=nodes,
            gpu_model=gpu_model,
        ),
        fabric=Fabric(
            technology=technology,
            name=name,
            link_gbps=gbps,
            switch_model=switch_model,
            switch_radix=64,
            nic_model="ConnectX-7",
            latency_us="<1",
        ),
        topology=Topology(
            kind=kind,
            tiers=tiers,
            endpoints=nodes * rails,
            radix=64,
            rails=rails,
            oversubscription=oversubscription,
            leaf_switches=leaf,
            spine_switches=spine,
            core_switches=core,
            scalable_units=scalable_units,
            cables=cables,
            bisection_gbps=gpus * gbps / 2,
        ),
        ports_per_server=[
            Port(role="compute", count=rails, gbps=gbps, note="one per GPU"),
            Port(role="storage", count=2, gbps=200),
            Port(role="out_of_band", count=1, gbps=1),
        ],
        cost=Cost(network_usd_low=1_600_000, network_usd_high=3_200_000, basis="test"),
        performance=Performance(allreduce_ms=310.5, relative_training_throughput=1.0),
        explanation=[Reason(rule_id="test", statement="test", source="test")],
    )


def superpod() -> Recommendation:
    return make_rec()


def inference_ethernet() -> Recommendation:
    return make_rec(
        "fat_tree",
        gpus=512,
        nodes=64,
        rails=1,
        leaf=4,
        spine=2,
        scalable_units=None,
        cables=[
            CableTier(tier="node-leaf", count=128, gbps=100),
            CableTier(tier="leaf-spine", count=64, gbps=100),
        ],
        technology="ethernet",
        name="Ethernet (100GbE)",
        switch_model="NVIDIA Spectrum SN4600",
        gbps=100,
        gpu_model="L40S",
        workload="inference",
        oversubscription=2.0,
    )


def dragonfly() -> Recommendation:
    return make_rec(
        "dragonfly_plus",
        gpus=16384,
        nodes=2048,
        rails=1,
        leaf=512,
        spine=512,
        scalable_units=None,
        cables=[
            CableTier(tier="node-leaf", count=16384, gbps=400),
            CableTier(tier="leaf-spine", count=16384, gbps=400),
            CableTier(tier="group-global", count=8000, gbps=400),
        ],
    )


def single_node() -> Recommendation:
    return make_rec(
        "single_node",
        gpus=8,
        nodes=1,
        tiers=0,
        rails=1,
        leaf=0,
        spine=0,
        scalable_units=None,
        cables=[],
        technology="nvlink_only",
        name="NVLink only",
        switch_model=None,
        gbps=7200,
    )


def huge() -> Recommendation:
    """100,000 GPUs, rail-optimized over three tiers."""
    return make_rec(
        gpus=100_000,
        nodes=12_500,
        tiers=3,
        leaf=1600,
        spine=1600,
        core=800,
        scalable_units=None,
        cables=[
            CableTier(tier="node-leaf", count=100_000, gbps=400),
            CableTier(tier="leaf-spine", count=51_200, gbps=400),
            CableTier(tier="spine-core", count=51_200, gbps=400),
        ],
    )


ALL_KINDS = {
    TopologyKind.rail_optimized: superpod,
    TopologyKind.fat_tree: inference_ethernet,
    TopologyKind.dragonfly_plus: dragonfly,
    TopologyKind.single_node: single_node,
}


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg.encode("utf-8"))


def all_text(root: ET.Element) -> str:
    return " ".join("".join(t.itertext()) for t in root.iter(f"{SVG}text"))


def test_every_topology_kind_renders_a_standalone_svg():
    assert set(ALL_KINDS) == set(TopologyKind)
    for kind, make in ALL_KINDS.items():
        svg = topology_svg(make())
        assert svg.startswith('<?xml version="1.0" encoding="UTF-8"?>'), kind
        root = parse(svg)
        assert root.tag == f"{SVG}svg"
        width, height = int(root.get("width")), int(root.get("height"))
        assert root.get("viewBox") == f"0 0 {width} {height}"
        title = root.find(f"{SVG}title")
        assert title is not None and title.text and kind.value.split("_")[0].lower() in svg.lower()
        for outside in ("<script", "<image", "href", "url(", "@import", "@font-face", "http://fonts"):
            assert outside not in svg.replace('xmlns="http://www.w3.org/2000/svg"', ""), (kind, outside)


def test_the_diagram_names_counts_switch_model_and_link_speeds():
    root = parse(topology_svg(superpod()))
    text = all_text(root)
    for expected in (
        "InfiniBand NDR (400 Gb/s)",
        "NVIDIA Quantum-2 QM9700",
        "32 leaf switches",
        "16 spine switches",
        "127 GPU servers",
        "8 × H100 per server",
        "1,024 cables × 400 Gb/s",
        "1,020 cables × 400 Gb/s",
        "48 switches",
        "2,044 cables",
    ):
        assert expected in text, expected
    assert "48 switches" in root.find(f"{SVG}desc").text


def rail_colours(root: ET.Element) -> dict[str, set[str]]:
    """The colour of every element marked with a rail, grouped by rail."""
    colours: dict[str, set[str]] = {}
    for element in root.iter():
        rail = element.get("data-rail")
        if rail is None:
            continue
        tag = element.tag.removeprefix(SVG)
        # port dots and legend swatches are filled; leaf boxes and links are stroked
        colour = element.get("fill") if tag == "circle" or not element.get("stroke") else element.get("stroke")
        colours.setdefault(rail, set()).add(colour)
    return colours


def test_rail_optimized_gives_each_rail_one_colour_and_links_every_port_to_its_rail():
    rec = superpod()
    root = parse(topology_svg(rec))
    colours = rail_colours(root)
    assert sorted(colours, key=int) == [str(r) for r in range(1, 9)]
    assert all(len(c) == 1 for c in colours.values()), colours
    assert len({next(iter(c)) for c in colours.values()}) == 8  # distinct rails, distinct colours
    rail_links = [e for e in root.iter(f"{SVG}line") if e.get("data-rail")]
    drawn_servers = 4  # three servers, '... more', the last; the elided box draws no links
    assert len(rail_links) == drawn_servers * rec.topology.rails
    assert "Rail 8" in all_text(root)  # the legend


def test_fat_tree_has_no_rails():
    root = parse(topology_svg(inference_ethernet()))
    assert rail_colours(root) == {}
    text = all_text(root)
    assert "4 leaf switches" in text and "2 spine switches" in text
    assert "NVIDIA Spectrum SN4600" in text
    assert "2:1 oversubscribed" in text
    assert "128 cables × 100 Gb/s" in text


def test_a_100k_gpu_fabric_is_drawn_as_groups_fast_and_small():
    rec = huge()
    timings = []
    for _ in range(5):
        started = time.perf_counter()
        svg = topology_svg(rec)
        timings.append(time.perf_counter() - started)
    assert min(timings) < 0.050, timings
    assert len(svg.encode("utf-8")) < 200_000
    root = parse(svg)
    rects = len(list(root.iter(f"{SVG}rect")))
    small_rects = len(list(parse(topology_svg(superpod())).iter(f"{SVG}rect")))
    assert rects <= 150 and rects <= small_rects + 20, (rects, small_rects)
    text = all_text(root)
    for expected in (
        "800 core switches",
        "1,600 spine switches",
        "1,600 leaf switches",
        "12,500 GPU servers",
        "1,593 more",
        "793 more",
        "12,496 more servers",
        "× 200",
        "51,200 cables × 400 Gb/s",
    ):
        assert expected in text, expected


def test_same_recommendation_same_bytes():
    for make in ALL_KINDS.values():
        assert topology_svg(make()) == topology_svg(make())
    assert topology_svg(huge()) == topology_svg(huge().model_copy(deep=True))


def test_odd_text_is_escaped_and_stays_well_formed():
    odd = "Fab <script>alert(\"x\")</script> & 'co' \x01\x1b"
    rec = make_rec(name=odd, switch_model="<Switch & Co>", gpu_model='H100 "<b>"')
    svg = topology_svg(rec)
    root = parse(svg)
    assert "<script" not in svg and "<Switch" not in svg
    text = all_text(root)
    assert "Fab <script>alert(\"x\")</script> & 'co'" in text  # shown as text, not markup
    assert "<Switch & Co>" in text
    assert "\x01" not in svg and "\x1b" not in svg
    assert "<script>" in root.find(f"{SVG}title").text


def test_dragonfly_plus_draws_groups_joined_by_global_links():
    root = parse(topology_svg(dragonfly()))
    text = all_text(root)
    assert "Group 1" in text and "Group 16" in text and "12 more groups" in text
    assert "8,000 cables × 400 Gb/s" in text
    assert "32 per group" in text
    global_links = list(root.iter(f"{SVG}path"))
    assert len(global_links) == 10  # every pair of the five drawn groups


def test_single_node_is_one_server_on_nvlink_without_switches():
    root = parse(topology_svg(single_node()))
    text = all_text(root)
    assert "NVSwitch" in text and "NVLink · 7.2 Tb/s per GPU" in text
    assert "GPU 0" in text and "GPU 7" in text
    assert "no network switches" in text
    assert "leaf" not in text.lower() and "spine" not in text.lower()


@pytest.mark.parametrize("gpus_per_node, rails", [(72, 4), (8, 16), (8, 40)])
def test_unusual_shapes_still_render(gpus_per_node: int, rails: int):
    nodes = 64
    rec = make_rec(
        gpus=nodes * gpus_per_node,
        gpus_per_node=gpus_per_node,
        nodes=nodes,
        rails=rails,
        leaf=rails * 2,
        spine=rails,
        scalable_units=2,
    )
    root = parse(topology_svg(rec))
    colours = rail_colours(root)
    assert all(len(c) == 1 for c in colours.values())
    assert len({next(iter(c)) for c in colours.values()}) == len(colours)
    assert f"{gpus_per_node} × H100 per server" in all_text(root)
