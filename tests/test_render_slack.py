"""Slack rendering: `advisor.render.slack.recommendation_blocks` and `markdown_to_mrkdwn`.

Slack reads its own markup (mrkdwn) and Block Kit, with hard limits on sizes; these pin
the conversion of our markdown, the figures and sources the blocks carry, and that a
message stays inside Slack's limits. Recommendations are built from the models directly.
"""

from __future__ import annotations

import json

import pytest

from advisor.render.markdown import recommendation_markdown
from advisor.render.slack import markdown_to_mrkdwn, recommendation_blocks
from advisor.render.wording import GUIDE
from rules.models import (
    CableTier,
    Cost,
    Fabric,
    Performance,
    Port,
    Reason,
    Recommendation,
    RoceSetting,
    Topology,
    WorkloadProfile,
)


def make_rec(**changes) -> Recommendation:
    """A 4-SU DGX SuperPOD-like recommendation (1,016 H100s, NDR, 32 leaf + 16 spine)."""
    reasons = [
        Reason(
            rule_id=f"rule-{i}", statement=f"Statement {i} for **this** workload.", source=f"Seed guide, section {i}"
        )
        for i in range(1, 7)
    ]
    fields = dict(
        id="r_3f9a0c12",
        profile=WorkloadProfile(
            workload="training", gpu_count=1016, gpus_per_node=8, node_count=127, gpu_model="H100", model_params_b=70
        ),
        fabric=Fabric(
            technology="infiniband_ndr",
            name="InfiniBand NDR (400 Gb/s)",
            link_gbps=400,
            switch_model="NVIDIA Quantum-2 QM9700",
            switch_radix=64,
            nic_model="ConnectX-7",
            latency_us="<1",
        ),
        topology=Topology(
            kind="rail_optimized",
            tiers=2,
            endpoints=1016,
            radix=64,
            rails=8,
            leaf_switches=32,
            spine_switches=16,
            core_switches=0,
            scalable_units=4,
            cables=[
                CableTier(tier="node-leaf", count=1020, gbps=400),
                CableTier(tier="leaf-spine", count=1024, gbps=400),
            ],
            bisection_gbps=203200,
        ),
        ports_per_server=[Port(role="compute", count=8, gbps=400), Port(role="storage", count=2, gbps=200)],
        cost=Cost(network_usd_low=1_600_000, network_usd_high=3_200_000, basis="test"),
        performance=Performance(allreduce_ms=310.5, relative_training_throughput=1.0),
        explanation=reasons,
        warnings=["Budget <$2M & tight > check"],
    )
    fields.update(changes)
    return Recommendation(**fields)


def all_text(blocks: list[dict]) -> str:
    return json.dumps(blocks)


# ---------------------------------------------------------------------- mrkdwn


@pytest.mark.parametrize(
    ("markdown", "mrkdwn"),
    [
        ("**bold**", "*bold*"),
        ("__bold__", "*bold*"),
        ("*italic* and _italic_", "_italic_ and _italic_"),
        ("***both***", "*_both_*"),
        ("~~gone~~", "~gone~"),
        ("[Topology diagram](http://h/v1/r/1/diagram.svg)", "<http://h/v1/r/1/diagram.svg|Topology diagram>"),
        ("[a **b**](https://x.example/?a=1&b=2)", "<https://x.example/?a=1&b=2|a *b*>"),
        ("# Heading **with** bold", "*Heading with bold*"),
        ("- one\n- two\n  - nested", "\u2022 one\n\u2022 two\n  \u2022 nested"),
        ("1. first\n2. second", "1. first\n2. second"),
        ("> **Check:** cabling", "> *Check:* cabling"),
        ("line one  \nline two", "line one\nline two"),
        ("A < B & C > D", "A &lt; B &amp; C &gt; D"),
        ("2 * 3 * 4 and a*b", "2 * 3 * 4 and a*b"),
        ("`**kept**` and **done**", "`**kept**` and *done*"),
        ("```\n**raw** <x>\n```", "```\n**raw** &lt;x&gt;\n```"),
        ("<https://slack.com>", "<https://slack.com>"),
    ],
)
def test_markdown_becomes_slack_mrkdwn(markdown: str, mrkdwn: str) -> None:
    assert markdown_to_mrkdwn(markdown) == mrkdwn


def test_the_recommendation_summary_reads_as_mrkdwn() -> None:
    rec = make_rec()
    text = markdown_to_mrkdwn(
        recommendation_markdown(rec, diagram_url="http://api.example/v1/recommendations/r_3f9a0c12/diagram.svg")
    )
    assert "**" not in text
    assert text.startswith("*Recommendation: InfiniBand NDR (400 Gb/s), rail-optimized")
    assert "\u2022 *Fabric:* InfiniBand NDR (400 Gb/s) on NVIDIA Quantum-2 QM9700" in text
    assert "<http://api.example/v1/recommendations/r_3f9a0c12/diagram.svg|Topology diagram>" in text
    assert "&lt;$2M &amp; tight &gt; check" in text


# ---------------------------------------------------------------------- blocks


def test_blocks_name_the_fabric_and_give_every_figure() -> None:
    blocks = recommendation_blocks(make_rec())
    assert blocks[0] == {
        "type": "header",
        "text": {
            "type": "plain_text",
            "text": "Recommendation: InfiniBand NDR (400 Gb/s), rail-optimized (DGX SuperPOD layout)",
            "emoji": False,
        },
    }
    fields = next(b for b in blocks if "fields" in b)["fields"]
    texts = {f["text"].split("\n", 1)[0]: f["text"].split("\n", 1)[1] for f in fields}
    assert list(texts) == [
        "*Fabric*",
        "*Topology*",
        "*Ports per server*",
        "*Switches*",
        "*Cables*",
        "*Network cost*",
        "*All-reduce*",
    ]
    assert texts["*Fabric*"] == "InfiniBand NDR (400 Gb/s) on NVIDIA Quantum-2 QM9700"
    assert texts["*Topology*"] == "rail-optimized (DGX SuperPOD layout), 2 tiers, 8 rails, 4 scalable units"
    assert texts["*Ports per server*"] == "8 x 400G compute, 2 x 200G storage"
    assert texts["*Switches*"] == "32 leaf + 16 spine = 48"
    assert texts["*Cables*"] == "1,020 node-leaf (400G), 1,024 leaf-spine (400G), 2,044 in all"
    assert texts["*Network cost*"] == "$1.6M - $3.2M"
    assert texts["*All-reduce*"].startswith("about 310.5 ms per gradient synchronisation")
    assert all(f["type"] == "mrkdwn" for f in fields)


def test_blocks_give_the_top_reasons_each_with_its_source_in_context() -> None:
    blocks = recommendation_blocks(make_rec(), reasons=4)
    reasons = [
        b
        for b in blocks
        if b["type"] == "section" and b.get("text", {}).get("text", "")[:2] in {"1.", "2.", "3.", "4.", "5."}
    ]
    assert [b["text"]["text"] for b in reasons] == [f"{i}. Statement {i} for *this* workload." for i in range(1, 5)]
    for reason in reasons:
        context = blocks[blocks.index(reason) + 1]
        assert context["type"] == "context"
        number = reason["text"]["text"][0]
        assert context["elements"][0]["text"] == f"Source: {GUIDE}: section {number}"  # the guide by title
        assert context["elements"][1]["text"] == f"Rule `rule-{number}`"


def test_blocks_link_the_diagram_and_name_the_recommendation() -> None:
    url = "https://advisor.example/v1/recommendations/r_3f9a0c12/diagram.svg"
    blocks = recommendation_blocks(make_rec(), diagram_url=url)
    footer = blocks[-1]
    assert footer["type"] == "context"
    assert footer["elements"][0]["text"] == f"<{url}|Topology diagram (SVG)>"
    assert "`r_3f9a0c12`" in footer["elements"][1]["text"]
    assert "<http" not in all_text(recommendation_blocks(make_rec()))


def test_warnings_are_escaped_callouts() -> None:
    blocks = recommendation_blocks(make_rec())
    warnings = [b for b in blocks if ":warning:" in b.get("text", {}).get("text", "")]
    assert [w["text"]["text"] for w in warnings] == [":warning: *Check:* Budget &lt;$2M &amp; tight &gt; check"]


def test_inference_and_a_single_server_leave_out_what_does_not_apply() -> None:
    rec = make_rec(
        profile=WorkloadProfile(workload="inference", gpu_count=8, gpus_per_node=8, node_count=1, gpu_model="H100"),
        topology=Topology(
            kind="single_node",
            tiers=0,
            endpoints=0,
            leaf_switches=0,
            spine_switches=0,
            core_switches=0,
            bisection_gbps=0,
        ),
        ports_per_server=[],
        cost=Cost(network_usd_low=0, network_usd_high=0, basis="test"),
        performance=Performance(allreduce_ms=None, relative_training_throughput=1.0),
        warnings=[],
        explanation=[],
    )
    blocks = recommendation_blocks(rec)
    fields = next(b for b in blocks if "fields" in b)["fields"]
    assert [f["text"].split("\n")[0] for f in fields] == [
        "*Fabric*",
        "*Topology*",
        "*Ports per server*",
        "*Switches*",
        "*Cables*",
        "*Network cost*",
    ]
    assert "*Switches*\nnone" in [f["text"] for f in fields]
    assert not any(b.get("text", {}).get("text") == "*Why*" for b in blocks)


def test_blocks_stay_within_slack_limits_for_long_text() -> None:
    long = "x" * 5000
    rec = make_rec(
        fabric=Fabric(technology="rocev2", name="R" * 300, link_gbps=400, latency_us="1-5", switch_model="S" * 2500),
        explanation=[Reason(rule_id="r", statement=long, source=long)] * 30,
        warnings=[long] * 20,
        roce_configuration=[RoceSetting(setting="PFC", value="on", why="lossless", source="guide")],
    )
    blocks = recommendation_blocks(rec, diagram_url="http://h/" + "d" * 100)
    assert len(blocks) <= 50
    assert len(blocks[0]["text"]["text"]) <= 150
    for block in blocks:
        if block["type"] == "section" and "text" in block:
            assert len(block["text"]["text"]) <= 3000
        for field in block.get("fields", []):
            assert len(field["text"]) <= 2000
        if block["type"] == "context":
            assert len(block["elements"]) <= 10
            assert all(len(e["text"]) <= 3000 for e in block["elements"])
    assert len(next(b for b in blocks if "fields" in b)["fields"]) <= 10


def test_blocks_give_the_cost_by_category_and_link_the_report_and_the_csv() -> None:
    from rules.engine import recommend

    rec = recommend(WorkloadProfile(workload="training", node_count=16, gpu_model="H100")).model_copy(
        update={"id": "r_3f9a0c12"}
    )
    url = "https://advisor.example/v1/recommendations/r_3f9a0c12/diagram.svg"
    blocks = recommendation_blocks(rec, diagram_url=url)
    fields = next(b for b in blocks if "fields" in b)["fields"]
    categories = next(f["text"] for f in fields if f["text"].startswith("*Cost by category*"))
    assert "switches $" in categories and "optics $" in categories
    footer = [element["text"] for element in blocks[-1]["elements"]]
    base = "https://advisor.example/v1/recommendations/r_3f9a0c12/"
    assert f"<{base}report|Printable report>" in footer
    assert f"<{base}bom.csv|Bill of materials (CSV)>" in footer
    assert len(fields) <= 10
