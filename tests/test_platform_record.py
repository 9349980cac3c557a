"""One platform record per system, and one value per fact in the data it is built from.

The review found a recommendation whose GPU memory came from two files with two values
(B300 270 GB and 288 GB) and a DGX H100 whose storage ports were 2 x 100G in the chat and
2 x 400G in the bill of materials. These tests fail when a fact is stated twice with two
values, and when a stage of the engine looks the server up again instead of reading the
record the engine resolved.
"""

import ast
import re
from pathlib import Path

import pytest

from knowledge import catalogue, performance, sources
from rules.engine import recommend
from rules.models import WorkloadProfile
from rules.platform import platform_for

RULES = Path(__file__).resolve().parents[1] / "rules"

# "H100 SXM 80 GB", "GB300 NVL72 rack: 288 GB", "A100 40 or 80 GB": a GPU named, then its
# memory within a few words, not a bandwidth (GB/s) and not a total ("640 GB per 8 GPUs").
_MEMORY_STATED = re.compile(
    r"\b(?P<gpu>A100|H100|H200|B200|B300|GB200|GB300|MI300X|L40S|L4)\b[^.;()\n]{0,40}?"
    r"\b(?P<gb>\d{2,3}) GB\b(?!/s| per| of| total| in total)"
)


def _gpu_memory() -> dict[str, float]:
    return {g.gpu_model: g.memory_gb for g in performance.gpus()}


def _texts():
    for record in sources.load():
        for field in ("text", "answer"):
            value = record.data.get(field)
            if isinstance(value, str):
                yield record.data.get("id", record.kind), value


def test_every_text_states_memory_per_gpu_as_the_gpu_facts_do():
    memory = _gpu_memory()
    stated = [
        (entry, m["gpu"], int(m["gb"]))
        for entry, text in _texts()
        for m in _MEMORY_STATED.finditer(text)
        if m["gpu"] in memory
    ]
    assert len(stated) >= 10, "the pattern no longer finds the memory figures it checks"
    wrong = [(entry, gpu, gb, memory[gpu]) for entry, gpu, gb in stated if gb != memory[gpu]]
    assert not wrong, f"memory per GPU stated with another value than gpus.yaml: {wrong}"


def test_no_server_states_memory_per_gpu_again_with_another_value():
    memory = _gpu_memory()
    for server in catalogue.servers():
        stated = server.gpu_memory_gb
        assert not stated or stated == memory[server.gpu_model], (server.model, stated, memory[server.gpu_model])


def test_blackwell_ultra_has_the_vendors_288_gb_everywhere():
    assert performance.gpu("B300").memory_gb == 288  # NVIDIA DGX B300: 2.3 TB per 8 GPUs
    assert performance.gpu("GB300").memory_gb == 288
    assert platform_for("GB300").gpu_memory_gb == 288
    plan = recommend(WorkloadProfile(workload="training", gpu_count=576, gpu_model="B300", model_params_b=405))
    assert plan.performance.plan and plan.performance.plan.gpu_memory_gb == 288


def test_the_dgx_h100_ports_the_faq_states_are_the_servers_ports():
    faq = next(r.data for r in sources.load() if r.data.get("id") == "faq-ports-per-server")["numbers"]
    server = catalogue.server_named("DGX H100")
    assert server is not None
    assert (faq["dgx_h100_compute_ports"], faq["dgx_h100_compute_gbps"]) == (server.compute_ports, server.compute_gbps)
    assert (faq["dgx_h100_storage_ports"], faq["dgx_h100_storage_gbps"]) == (server.storage_ports, server.storage_gbps)
    rec = recommend(WorkloadProfile(workload="training", gpu_count=128, gpu_model="H100"))
    storage = next(p for p in rec.ports_per_server if p.role == "storage")
    assert (storage.count, storage.gbps) == (server.storage_ports, server.storage_gbps)


@pytest.mark.parametrize("gpu_model", catalogue.gpu_models())
def test_every_catalogued_gpu_resolves_to_one_record_from_its_one_home(gpu_model):
    record = platform_for(gpu_model)
    assert not record.assumed and record.gpu_model == gpu_model
    assert record.gpu_memory_gb == _gpu_memory()[gpu_model]
    assert record.scale_up.words in ("NVLink", "AMD Infinity Fabric", "PCIe")
    assert (record.vendor == "amd") == (record.collective_library == "RCCL")


def _lookups(path: Path) -> list[str]:
    """Calls that look the hardware up again from a GPU's name."""
    banned = {
        ("catalogue", "server_for"),
        ("performance", "gpu"),
        ("catalogue", "nvlink"),
        ("catalogue", "max_nic_gbps"),
    }
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            if isinstance(owner, ast.Name) and (owner.id, node.func.attr) in banned:
                found.append(f"{path.name}:{node.lineno} {owner.id}.{node.func.attr}")
    return found


# rules/platform.py builds the record; rules/servers.py resolves the profile before there is one
_RECORD_BUILDERS = {"platform.py", "servers.py"}


def test_the_stages_read_the_platform_record_instead_of_looking_the_server_up():
    files = [p for p in RULES.rglob("*.py") if p.name not in _RECORD_BUILDERS]
    found = [hit for path in files for hit in _lookups(path)]
    assert not found, found


def _traffic_words(rec) -> str:
    """What the traffic model says about a design, without its citations ("Bandwidths: ...")."""
    lines = [a for a in rec.performance.assumptions if not a.startswith("Bandwidths:")]
    if rec.fabric_configuration:
        lines += [f"{s.setting} {s.value} {s.why}" for s in rec.fabric_configuration.validation]
    return " ".join(lines)


@pytest.mark.parametrize("gpu_model", catalogue.gpu_models())
@pytest.mark.parametrize("gpus", [8, 64, 576])
def test_the_traffic_text_names_the_platforms_own_link_and_library(gpu_model, gpus):
    record = platform_for(gpu_model)
    rec = recommend(WorkloadProfile(workload="training", gpu_count=gpus, gpu_model=gpu_model, model_params_b=70))
    words = _traffic_words(rec)
    if not record.has_nvlink:
        assert "NVLink" not in words, words
    if record.scale_up.kind != "pcie":
        assert record.scale_up.words in words
    if record.collective_library == "RCCL":
        assert "nccl-tests" not in words
        if rec.fabric_configuration:
            assert "rccl-tests all_reduce_perf" in words
