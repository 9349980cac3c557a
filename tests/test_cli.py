"""The `fabric-advisor` command, run as a person runs it: the installed script."""

from __future__ import annotations

import json
import subprocess

import pytest

from tests.servers import VENV_BIN


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(VENV_BIN / "fabric-advisor"), *args], capture_output=True, text=True, timeout=120, env=env
    )


@pytest.fixture(autouse=True)
def _private_store(tmp_path, monkeypatch):
    monkeypatch.setenv("FABRIC_ADVISOR_DB", str(tmp_path / "advisor.db"))


def test_recommend_prints_a_readable_summary_with_reasons_and_sources():
    result = cli("recommend", "--workload", "training", "--gpus", "128", "--gpu-model", "H100", "--params-b", "70")
    assert result.returncode == 0, result.stderr
    assert "InfiniBand NDR" in result.stdout
    assert "rail-optimized" in result.stdout
    assert "training-16plus-infiniband" in result.stdout
    assert "Seed guide" in result.stdout


def test_recommend_json_is_the_recommendation_contract():
    result = cli(
        "recommend", "--workload", "training", "--gpus", "128", "--gpu-model", "H100", "--params-b", "70", "--json"
    )
    assert result.returncode == 0, result.stderr
    body = json.loads(result.stdout)
    assert body["fabric"]["technology"] == "infiniband_ndr"
    assert body["topology"]["kind"] == "rail_optimized"
    assert body["id"].startswith("r_")
    for key in ("ports_per_server", "cost", "performance", "roce_configuration", "alternatives", "explanation"):
        assert key in body


def test_every_profile_field_has_a_flag():
    result = cli(
        "recommend",
        "--workload",
        "training",
        "--nodes",
        "6",
        "--gpus-per-node",
        "8",
        "--gpu-model",
        "H100",
        "--params-b",
        "13",
        "--budget-usd",
        "3000000",
        "--network-budget-usd",
        "400000",
        "--cost-sensitive",
        "--existing-ethernet",
        "--prefer",
        "rocev2",
        "--tp",
        "2",
        "--pp",
        "2",
        "--message-gb",
        "8",
        "--moe",
        "--active-params-b",
        "4",
        "--tokens-per-step",
        "1048576",
        "--json",
    )
    assert result.returncode == 0, result.stderr
    profile = json.loads(result.stdout)["profile"]
    assert profile == {
        "workload": "training",
        "gpu_count": 48,
        "gpus_per_node": 8,
        "node_count": 6,
        "gpu_model": "H100",
        "model_params_b": 13.0,
        "budget_usd": 3000000.0,
        "network_budget_usd": 400000.0,
        "cost_sensitive": True,
        "existing_ethernet": True,
        "prefer": "rocev2",
        "tp": 2,
        "pp": 2,
        "message_gb": 8.0,
        "moe": True,
        "active_params_b": 4.0,
        "tokens_per_step": 1048576,
    }


def test_size_prints_the_superpod_topology():
    result = cli("size", "--nodes", "127", "--gpus-per-node", "8", "--radix", "64", "--rail-optimized", "--json")
    assert result.returncode == 0, result.stderr
    topology = json.loads(result.stdout)
    assert (topology["leaf_switches"], topology["spine_switches"]) == (32, 16)
    assert [c["count"] for c in topology["cables"]] == [1020, 1024]


def test_kb_search_prints_entries_with_sources():
    result = cli("kb", "search", "what is PFC")
    assert result.returncode == 0, result.stderr
    assert "PFC" in result.stdout.splitlines()[0]
    assert "Source:" in result.stdout


def test_ask_answers_a_knowledge_question():
    result = cli("ask", "what is PFC?")
    assert result.returncode == 0, result.stderr
    assert "Source" in result.stdout


@pytest.mark.parametrize(
    "args, says",
    [
        (("recommend", "--workload", "training", "--gpus", "0"), "gpu_count"),
        (("recommend", "--workload", "training", "--gpus", "2000000"), "gpu_count"),
        (("recommend", "--workload", "dancing", "--gpus", "8"), "--workload"),
        (("recommend", "--gpus", "8"), "--workload"),
        (
            ("recommend", "--workload", "training", "--gpus", "100", "--nodes", "10", "--gpus-per-node", "8"),
            "gpu_count",
        ),
        (("recommend", "--workload", "training", "--gpus", "8", "--bogus"), "--bogus"),
        (("size", "--nodes", "100000", "--radix", "16"), "fat-tree"),
        (("ask", "x" * 2001), "2000"),
        (("recommend", "--workload", "training", "--gpus", "16", "--tp", "8", "--pp", "4"), "tp x pp"),
        (("recommend", "--workload", "training", "--gpus", "16", "--message-gb", "0"), "message_gb"),
    ],
)
def test_bad_input_is_one_clear_line_and_exit_code_2(args, says):
    result = cli(*args)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert says in lines[0]


def test_recommend_bom_prints_the_bill_of_materials_table():
    result = cli(
        "recommend", "--workload", "training", "--nodes", "16", "--gpu-model", "H100", "--bom", env=_wide_env()
    )
    assert result.returncode == 0, result.stderr
    assert "Bill of materials" in result.stdout
    for part in ("MQM9700-NS2F", "MMA4Z00-NS", "MFP7E10-N015", "MSN2201-CB2FC", "included"):
        assert part in result.stdout, part


def test_recommend_bom_csv_writes_every_line_and_a_total(tmp_path):
    import csv

    target = tmp_path / "bom.csv"
    result = cli(
        "recommend", "--workload", "training", "--nodes", "16", "--gpu-model", "H100", "--bom-csv", str(target)
    )
    assert result.returncode == 0, result.stderr
    rows = list(csv.DictReader(target.open(encoding="utf-8", newline="")))
    body = json.loads(
        cli("recommend", "--workload", "training", "--nodes", "16", "--gpu-model", "H100", "--json").stdout
    )
    assert len(rows) == len(body["bill_of_materials"]) + 1
    assert rows[-1]["fabric"] == "total"
    assert int(rows[-1]["total_usd_low"]) == body["cost"]["network_usd_low"]
    assert all(row["part_number"] and row["source"] for row in rows[:-1])
    assert str(target) in result.stdout


def test_recommend_bom_csv_to_an_unwritable_place_is_exit_code_2(tmp_path):
    result = cli("recommend", "--workload", "training", "--nodes", "16", "--bom-csv", str(tmp_path / "no" / "x.csv"))
    assert result.returncode == 2
    assert "--bom-csv" in result.stderr and "Traceback" not in result.stderr


def _wide_env() -> dict[str, str]:
    import os

    return {**os.environ, "COLUMNS": "220"}
