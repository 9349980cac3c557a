"""Spares as a stated policy (rules/spares.yaml): spare switches per switch tier and spare
optics, cables and fibre per cable tier, every spare line saying its tier, its figure and
that the figure is the advisor's own judgement; checked when the policy loads; seen
through recommend, the CLI and the API."""

from __future__ import annotations

import json
import math

import httpx
import pytest
from typer.testing import CliRunner

from cli.main import app
from rules import pricing, spares
from rules.engine import recommend
from rules.models import WorkloadProfile


def advise(**fields: object):
    return recommend(WorkloadProfile.model_validate({"workload": "training", **fields}))


def is_switch(line) -> bool:
    return line.description.split(":")[0].endswith(" switch")


def spare_lines(rec, fabric: str = "compute"):
    return [line for line in rec.bill_of_materials if line.category == "spare" and line.fabric == fabric]


def test_the_policy_names_every_tier_and_says_it_is_the_advisors_own_judgement():
    policy = spares.policy()
    assert set(policy.cables) == {"node-leaf", "leaf-spine", "spine-core", "group-global"}
    assert set(policy.switches) == {"leaf", "spine", "core"}
    assert "Fabric Advisor judgement" in policy.source and "no vendor" in policy.source


def test_a_typo_in_the_policy_stops_the_load_naming_the_file(tmp_path):
    bad = tmp_path / "spares.yaml"
    text = spares.POLICY_FILE.read_text().replace("optics_pct: 3", "optics_pc: 3")
    bad.write_text(text)
    with pytest.raises(spares.PolicyError, match=r"(?s)spares\.yaml.*optics_pc"):
        spares.policy(bad)


def test_16k_gpus_keep_spare_switches_per_tier_by_the_policy():
    rec = advise(gpu_count=16_384, gpu_model="H100")
    t = rec.topology
    assert (t.leaf_switches, t.spine_switches, t.core_switches) == (512, 512, 256)
    policy = spares.policy()
    switches = {line.description.split()[1]: line for line in spare_lines(rec) if is_switch(line)}
    assert {tier: line.quantity for tier, line in switches.items()} == {
        "leaf": math.ceil(512 / policy.switches["leaf"].one_per),
        "spine": math.ceil(512 / policy.switches["spine"].one_per),
        "core": math.ceil(256 / policy.switches["core"].one_per),
    }
    for line in switches.values():
        assert line.part_number == "MQM9700-NS2F" or line.part_number.startswith("MQM9700")
        assert line.unit_usd_low > 0 and "Fabric Advisor judgement" in line.note


def test_16k_gpus_keep_spare_optics_per_cable_tier_rounded_up():
    rec = advise(gpu_count=16_384, gpu_model="H100")
    policy = spares.policy()
    optics = [line for line in spare_lines(rec) if not is_switch(line)]
    tiers = {line.note.split(":")[0] for line in optics}
    assert tiers == {"node-leaf", "leaf-spine", "spine-core"}
    for line in optics:
        tier = line.note.split(":")[0]
        counted = int(line.note.split(" of ")[1].split(", rounded")[0].replace(",", ""))
        assert line.quantity == math.ceil(counted * policy.cables[tier].optics_pct / 100)
        assert line.description.startswith(f"Spare ({tier}): ")
    # one MPO fibre per optical server link: 3 % of 16,384, rounded up
    fibres = [line for line in optics if line.note.startswith("node-leaf") and "16,384" in line.note]
    assert fibres and all(line.quantity == math.ceil(16_384 * 0.03) for line in fibres)


def test_a_small_fabric_keeps_no_spare_switch_and_the_cost_says_why():
    rec = advise(node_count=16, gpu_model="H100")
    assert not [line for line in spare_lines(rec) if is_switch(line)]
    assert spare_lines(rec)  # its optics still have spares
    assert any("Spares per tier" in a and "Fabric Advisor judgement" in a for a in rec.cost.assumptions)
    assert pricing.spares_words() in rec.cost.assumptions


def test_spares_are_priced_into_the_network_cost():
    rec = advise(gpu_count=4096, gpu_model="H100")
    spend = sum(line.usd_low for line in rec.bill_of_materials if line.category == "spare")
    assert spend > 0
    part = next(p for p in rec.cost.by_category if p.name == "spare")
    assert part.usd_low == pytest.approx(spend, abs=1000)  # the cost is rounded to thousands
    assert part.watts == 0  # spares on the shelf draw no power


def test_the_cli_bill_of_materials_lists_spares_per_tier():
    result = CliRunner().invoke(
        app, ["recommend", "--workload", "training", "--gpus", "4096", "--gpu-model", "H100", "--json"]
    )
    assert result.exit_code == 0, result.output
    lines = [line for line in json.loads(result.stdout)["bill_of_materials"] if line["category"] == "spare"]
    described = {line["description"].split(":")[0] for line in lines if line["fabric"] == "compute"}
    assert {"Spare leaf switch", "Spare spine switch", "Spare core switch"} <= described
    assert {"Spare (node-leaf)", "Spare (leaf-spine)", "Spare (spine-core)"} <= described


def test_the_api_returns_spares_per_tier_end_to_end(api):
    body = {"workload": "training", "gpu_count": 4096, "gpu_model": "H100"}
    response = httpx.post(api.url + "/v1/recommendations", json=body, timeout=60)
    assert response.status_code == 201, response.text
    lines = [line for line in response.json()["bill_of_materials"] if line["category"] == "spare"]
    assert any(line["description"].startswith("Spare leaf switch") for line in lines)
    assert all("Fabric Advisor judgement" in line["note"] for line in lines)
