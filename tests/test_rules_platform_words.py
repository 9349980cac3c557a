"""Words from the platform record: the scale-up link, the collective library, its settings
and its tests are named for the GPUs the design is built on.

AMD Instinct GPUs are joined by Infinity Fabric and driven by RCCL (rccl-tests), never told
to enable NVIDIA's NVLink SHARP; PCIe cards have no NVLink at all.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from advisor.render.markdown import recommendation_markdown, why_markdown
from advisor.render.wording import customer
from rules.engine import recommend
from rules.models import Recommendation, WorkloadProfile

RULEBOOK = Path(__file__).resolve().parents[1] / "rules" / "rulebook"
NVIDIA_ONLY = ("NVLS", "NVLink SHARP", "NCCL_NVLS_ENABLE", "NCCL_COLLNET_ENABLE", "nvidia-peermem", "nccl-tests")


def advise(**fields) -> Recommendation:
    return recommend(WorkloadProfile(**fields))


def everything_said(rec: Recommendation) -> str:
    """Every sentence a customer reads about the design: the trail, the warnings, the
    settings and checks, and the markdown the chat shows."""
    parts = [r.statement for r in rec.explanation] + rec.warnings + [rec.fabric.name]
    if rec.fabric_configuration:
        for s in rec.fabric_configuration.settings + rec.fabric_configuration.validation:
            parts += [s.setting, s.value, s.why]
    # the plan's and step model's own assumptions are written by the traffic model (rules/sizing), not here
    why = why_markdown(rec).split("**Considered")[0].split("**The all-reduce estimate assumes")[0]
    rendered = "\n".join([recommendation_markdown(rec), why])
    for reason in customer(rec).explanation:  # the documents cited are named as their publishers title them
        rendered = rendered.replace(reason.source, "")
    return "\n".join([*parts, rendered])


def test_one_mi300x_server_is_infinity_fabric_not_nvlink():
    rec = advise(workload="training", gpu_count=8, gpu_model="MI300X")
    assert rec.fabric.technology == "nvlink_only"  # the contract's name for "no compute fabric"
    said = everything_said(rec)
    assert "NVLink" not in said
    assert "AMD Infinity Fabric carries the GPU-to-GPU traffic" in said
    assert rec.fabric.name.startswith("AMD Infinity Fabric only")


@pytest.mark.parametrize("prefer", ["infiniband", "rocev2", "ethernet"])
def test_mi300x_fabrics_are_configured_for_rccl_and_checked_with_rccl_tests(prefer):
    rec = advise(workload="training", gpu_count=1024, gpu_model="MI300X", prefer=prefer)
    configuration = rec.fabric_configuration
    assert configuration is not None
    said = everything_said(rec)
    for word in NVIDIA_ONLY:
        assert word not in said, word
    assert any(s.area == "rccl" for s in configuration.settings)
    assert not any(s.area == "nccl" and "NCCL_IB_HCA" in s.setting for s in configuration.settings)
    checks = [s.setting for s in configuration.validation]
    assert any(c.startswith("rccl-tests all_reduce_perf") for c in checks)
    assert "AMD Infinity Fabric" in configuration.validation[0].why


def test_nvidia_fabrics_keep_nccl_and_its_sharp_settings():
    rec = advise(workload="training", gpu_count=1024, gpu_model="H100")
    configuration = rec.fabric_configuration
    assert configuration is not None
    assert any("NCCL_COLLNET_ENABLE=1" in s.value for s in configuration.settings)
    assert all(s.setting.startswith(("nccl-tests", "perftest")) for s in configuration.validation)
    assert not any(s.area == "rccl" for s in configuration.settings)


@pytest.mark.parametrize("gpu", ["L40S", "L4"])
def test_pcie_cards_are_never_said_to_have_nvlink(gpu):
    rec = advise(workload="training", gpu_count=8, gpu_model=gpu)
    said = everything_said(rec)
    assert f"{gpu} GPUs have no NVLink" in said
    assert "NVLink connects" not in said and "NVLink carries" not in said
    assert "PCIe connects them inside it" in said
    cluster = advise(workload="training", gpu_count=64, gpu_model=gpu)
    checks = cluster.fabric_configuration.validation if cluster.fabric_configuration else []
    assert checks and "Checks PCIe inside one server" in checks[0].why


def test_pcie_servers_that_share_ports_do_not_claim_a_port_per_gpu():
    rec = advise(workload="training", gpu_count=64, gpu_model="L40S")
    rules = [r.rule_id for r in rec.explanation]
    assert "pcie-server-shares-compute-ports" in rules and "dedicated-compute-port-per-gpu" not in rules
    compute = next(p for p in rec.ports_per_server if p.role == "compute")
    assert f"has {compute.count} compute ports for its 8 GPUs" in " ".join(r.statement for r in rec.explanation)


def test_rack_scale_ports_are_counted_per_rack():
    rec = advise(workload="training", gpu_count=576, gpu_model="GB200")
    text = next(r.statement for r in rec.explanation if r.rule_id == "dedicated-compute-port-per-gpu")
    assert "(72 per NVL72 rack)" in text


def test_rule_statements_take_platform_words_from_facts():
    """No statement hard-codes NVIDIA's words where the platform decides them: NVLink
    appears only as 'no NVLink', in the rack-scale rule, or in what an assumed H100 is."""
    allowed = {"single-node-pcie", "nvl72-racks-joined-by-fabric", "unknown-gpu-assumed"}
    for path in sorted(RULEBOOK.glob("*.yaml")):
        for rule in yaml.safe_load(path.read_text())["rules"]:
            text = " ".join([rule["because"], rule.get("warn") or ""])
            for word in ("NVLink", "DGX H100", "nccl-tests", "NCCL_"):
                if word in text:
                    assert rule["id"] in allowed, f"{path.name}: {rule['id']} hard-codes {word!r}"
