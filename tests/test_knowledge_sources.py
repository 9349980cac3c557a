"""The YAML sources hold every fact of the seed guide, each with its source, and record
where the vendor's documentation corrects the guide."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from knowledge import schemas, sources

SEED_GUIDE = Path(__file__).resolve().parents[2] / "shared" / "seed" / "000_7f1cf65573fac56a.txt"


@pytest.fixture(scope="module")
def records() -> list[sources.Record]:
    return sources.load()


@pytest.fixture(scope="module")
def by_id(records) -> dict[str, dict]:
    return {r.id: r.data for r in records}


def kind(records, name: str) -> list[dict]:
    return [r.data for r in records if r.kind == name]


def test_every_entry_has_an_id_title_text_and_source(records):
    assert len(records) > 100
    for r in records:
        assert re.fullmatch(sources.ID_PATTERN, r.id), r.id
        for field in ("title", "text", "source"):
            assert r.data[field].strip(), f"{r.id} has no {field}"


def test_ids_are_unique_across_files(records):
    ids = [r.id for r in records]
    assert len(ids) == len(set(ids))


def test_subjects_are_the_source_files(records):
    assert {r.subject for r in records} == {
        "cost",
        "faq",
        "fabric_settings",
        "figures",
        "glossary",
        "gpus",
        "hardware",
        "links",
        "models",
        "nccl_results",
        "ports",
        "practice",
        "pricebook",
        "roce",
        "technologies",
        "topologies",
    }


def test_comparison_table_has_all_six_rows_with_every_column(records):
    rows = {d["id"]: d for d in kind(records, "technologies")}
    assert set(rows) == {
        "infiniband-hdr",
        "infiniband-ndr",
        "rocev2-100gbe",
        "rocev2-400gbe",
        "ethernet-100gbe",
        "nvlink-intra-server",
    }
    for row in rows.values():
        for column in ("technology", "bandwidth", "latency", "rdma", "cost", "ecosystem", "best_for"):
            assert row[column], f"{row['id']} lacks {column}"
    assert rows["infiniband-hdr"]["technology"] == "infiniband_hdr"
    assert rows["infiniband-ndr"]["cost"] == "Very high"
    assert (rows["rocev2-100gbe"]["technology"], rows["rocev2-100gbe"]["gbps"]) == ("rocev2", 100)
    assert (rows["rocev2-400gbe"]["technology"], rows["rocev2-400gbe"]["gbps"]) == ("rocev2", 400)
    assert rows["rocev2-400gbe"]["best_for"] == "Large-scale training alternative to IB"
    assert rows["ethernet-100gbe"]["latency_us"] == "10-100"
    assert rows["ethernet-100gbe"]["rdma"] == "No"
    assert rows["nvlink-intra-server"]["bandwidth"] == "900 GB/s per GPU"
    assert rows["nvlink-intra-server"]["cost"] == "Included in SXM"


def test_infiniband_generations_hdr_ndr_xdr(records):
    generations = {d["technology"]: d for d in kind(records, "generations")}
    assert {t: g["gbps"] for t, g in generations.items()} == {
        "infiniband_hdr": 200,
        "infiniband_ndr": 400,
        "infiniband_xdr": 800,
    }


def test_ethernet_sections_for_inference_and_training(by_id):
    assert "ECMP" in by_id["ethernet-inference-clusters"]["text"]
    training = by_id["ethernet-training-clusters"]
    assert training["requires"] == ["ECN", "PFC", "DCQCN"]
    assert training["performance_penalty_pct"] == [10, 20]


def test_roce_mechanisms_form_a_checklist(records):
    checklist = {d["setting"]: d for d in kind(records, "roce") if "setting" in d}
    assert {"PFC", "ECN", "DCQCN", "Lossless buffers", "QoS / trust DSCP"} <= set(checklist)
    assert "priority 3" in checklist["PFC"]["value"]
    for item in checklist.values():
        assert item["value"] and item["why"] and item["source"]


def test_topologies_use_contract_kinds(records):
    kinds = {d["kind"] for d in kind(records, "topologies")}
    assert {"fat_tree", "rail_optimized", "dragonfly_plus"} <= kinds
    for topology in kind(records, "topologies"):
        assert topology["when_to_use"]


def test_headline_figures_and_takeaways(records):
    figures = {d["label"]: d["value"] for d in kind(records, "figures")}
    assert figures == {
        "InfiniBand NDR": 400,
        "IB Latency": "<1",
        "All-Reduce Impact": [20, 40],
        "RoCEv2 Latency": [1, 5],
    }
    assert len(kind(records, "takeaways")) == 5


def test_every_faq_with_its_numbers(by_id):
    need = by_id["faq-do-i-need-infiniband"]["numbers"]
    assert need["large_training_min_gpus"] == 16
    assert need["ethernet_throughput_loss_pct"] == [20, 40]
    assert need["single_dgx_gpus"] == 8
    assert need["mid_scale_training_gpus"] == [16, 64]
    assert need["rocev2_performance_penalty_pct"] == [10, 20]

    cost = by_id["faq-infiniband-vs-ethernet-cost"]["numbers"]
    assert cost["reference_nodes"] == 16 and cost["reference_server"] == "DGX H100"
    assert cost["infiniband_hdr_fabric_usd"] == [200_000, 400_000]
    assert cost["ethernet_400g_fabric_usd"] == [80_000, 150_000]
    assert cost["infiniband_premium_factor"] == [2, 3]
    assert (cost["example_cluster_usd"], cost["example_premium_usd"], cost["example_premium_share_pct"]) == (
        5_000_000,
        200_000,
        4,
    )

    ports = by_id["faq-ports-per-server"]["numbers"]
    assert ports["dgx_h100_compute_ports"] == 8
    assert ports["dgx_h100_compute_gbps"] == 400
    assert (ports["dgx_h100_management_ports"], ports["dgx_h100_management_gbps"]) == (2, 10)
    assert (ports["dgx_h100_storage_ports"], ports["dgx_h100_storage_gbps"]) == (2, 400)  # NVIDIA's, as hardware.yaml
    assert ports["dgx_h100_storage_gbps_per_guide"] == 100  # the seed guide's generic figure
    assert ports["inference_traffic_gbps"] == [100, 400]
    assert (ports["inference_management_ports"], ports["inference_management_gbps"]) == (1, 10)
    for faq in ("faq-do-i-need-infiniband", "faq-infiniband-vs-ethernet-cost", "faq-ports-per-server"):
        assert by_id[faq]["question"] and by_id[faq]["answer"]


def test_port_layouts_use_contract_roles(records):
    roles = {"compute", "storage", "inband_management", "out_of_band", "inference_traffic"}
    layouts = [d for d in kind(records, "ports") if "layout" in d]
    assert {d["id"] for d in layouts} >= {"ports-dgx-h100", "ports-hgx-h100", "ports-inference-pcie"}
    for d in layouts:
        assert {p["role"] for p in d["layout"]} <= roles


GLOSSARY_TERMS = [
    "RDMA",
    "RoCEv2",
    "PFC",
    "ECN",
    "DCQCN",
    "lossless Ethernet",
    "ECMP",
    "all-reduce",
    "bisection bandwidth",
    "oversubscription",
    "fat-tree",
    "rail-optimized",
    "Dragonfly+",
    "NVLink",
    "HDR",
    "NDR",
    "XDR",
    "SHARP",
    "GPUDirect RDMA",
]


def test_glossary_has_every_listed_term(records):
    terms = {d["term"] for d in kind(records, "glossary")}
    missing = [t for t in GLOSSARY_TERMS if t not in terms]
    assert not missing


def test_terms_outside_the_guide_cite_a_standard_or_vendor(by_id):
    assert "IEEE 802.1Qbb" in by_id["glossary-pfc"]["source"]
    assert "RFC 3168" in by_id["glossary-ecn"]["source"]
    assert "NVIDIA" in by_id["glossary-sharp"]["source"]
    assert "NVIDIA" in by_id["glossary-gpudirect-rdma"]["source"]


def test_discrepancies_with_the_vendor_are_noted(by_id):
    assert "400" in by_id["server-dgx-h100"]["note"] and "HDR200" in by_id["server-dgx-h100"]["note"]
    assert "Quantum-2" in by_id["infiniband-hdr-generation"]["note"]
    assert "Quantum-3" in by_id["infiniband-ndr-generation"]["note"]
    assert by_id["switch-qm8700"]["note"] and by_id["switch-qm9700"]["note"]
    assert "ConnectX-7" in by_id["faq-ports-per-server"]["note"]


def test_estimates_are_marked_as_the_projects_own(records):
    for d in kind(records, "price_book"):
        # a price is either marked as the project's estimate or cites the published page it comes from
        if not d["source"].startswith("Fabric Advisor estimate (project's own)"):
            assert "https://" in d["source"].split(";")[0], d["id"]
    for link in kind(records, "links"):
        if link["id"] in {"link-nvlink-b200", "link-infiniband-xdr-800", "link-rocev2-400", "link-ethernet-100"}:
            assert "Fabric Advisor estimate" in link["source"]


def test_sources_name_documents_not_the_knowledge_bases_own_entries():
    """A source is what a customer reads beside the answer: a document by its title and
    publisher, never one of our entry ids ("as in practice-optics-reach-power")."""
    records = sources.load()
    ids = {r.data["id"] for r in records}
    cited = [(r.data["id"], other) for r in records for other in ids if other in r.data["source"]]
    assert not cited, cited


@pytest.mark.skipif(not SEED_GUIDE.exists(), reason="seed guide not available")
def test_guide_citations_name_real_sections():
    guide = SEED_GUIDE.read_text(encoding="utf-8")
    cited = set()
    for r in sources.load():
        for part in r.data["source"].split(";"):
            if part.strip().startswith("Seed guide:"):
                cited.update(re.findall(r'"([^"]+)"', part))
    assert cited
    for title in cited:
        assert title in guide, f"not a section of the guide: {title!r}"
    for section in [
        "Executive summary",
        "Key takeaways",
        "Why GPU Networking Is Different",
        "InfiniBand for AI Clusters",
        "HDR InfiniBand (200 Gb/s)",
        "NDR InfiniBand (400 Gb/s)",
        "NVIDIA Quantum-X800 (800 Gb/s)",
        "Ethernet for AI Workloads",
        "Inference Clusters",
        "Training Clusters (Ethernet)",
        "RoCE (RDMA over Converged Ethernet)",
        "Priority Flow Control (PFC)",
        "Explicit Congestion Notification (ECN)",
        "Lossless Network Configuration",
        "Fat-Tree (Clos Network)",
        "Rail-Optimized (DGX SuperPOD)",
        "Dragonfly+",
        "InfiniBand vs. Ethernet Comparison",
        "Do I need InfiniBand for my GPU cluster?",
        "What is the cost difference between InfiniBand and Ethernet for a GPU cluster?",
        "How many network ports does each GPU server need?",
    ]:
        assert section in cited, f"guide section not covered: {section}"


def test_malformed_source_names_file_and_entry(tmp_path):
    (tmp_path / "glossary.yaml").write_text("glossary:\n  - id: Not_Kebab\n    title: x\n    text: y\n    source: z\n")
    with pytest.raises(sources.SourceError, match=r"glossary\.yaml: Not_Kebab"):
        sources.load(tmp_path)


def test_duplicate_id_is_rejected(tmp_path):
    entry = "  - {id: same-id, title: t, text: x, source: s}\n"
    (tmp_path / "a.yaml").write_text("summary:\n" + entry)
    (tmp_path / "b.yaml").write_text("takeaways:\n" + entry)
    with pytest.raises(sources.SourceError, match="duplicate id"):
        sources.load(tmp_path)


def test_entry_without_source_is_rejected(tmp_path):
    (tmp_path / "faq.yaml").write_text("faq:\n  - {id: no-source, title: t, text: x}\n")
    with pytest.raises(sources.SourceError, match="source"):
        sources.load(tmp_path)


def test_unknown_kind_is_refused_naming_the_file(tmp_path):
    (tmp_path / "notes.yaml").write_text("glosary:\n  - {id: pfc, title: t, text: x, source: s}\n")
    with pytest.raises(sources.SourceError, match=r"notes\.yaml: unknown kind 'glosary'"):
        sources.load(tmp_path)


def test_misspelled_field_of_a_kind_names_file_entry_and_field(tmp_path):
    (tmp_path / "topologies.yaml").write_text(
        "topologies:\n  - {id: fat-tree, title: t, text: x, source: s, kind: fat_tree, bisection: full,\n"
        "     scale: any, when_to_use: always, whenn: typo}\n"
    )
    with pytest.raises(sources.SourceError, match=r"topologies\.yaml: fat-tree: whenn: Extra inputs"):
        sources.load(tmp_path)


def test_wrong_type_in_a_hardware_entry_names_file_entry_and_field(tmp_path):
    (tmp_path / "hardware.yaml").write_text(
        "hardware_switches:\n  - {id: qm9700, title: t, text: x, source: s, model: QM9700, name: Quantum-2,\n"
        "     fabric: infiniband, generation: ndr, ports: sixty-four, port_gbps: 400}\n"
    )
    with pytest.raises(sources.SourceError, match=r"hardware\.yaml: qm9700: ports: .*integer.*sixty-four"):
        sources.load(tmp_path)


def test_every_shipped_kind_has_a_schema():
    assert {r.kind for r in sources.load()} <= set(schemas.KINDS)


def test_each_files_kinds_are_read_from_its_top_level_keys() -> None:
    for path, declared in sources._declared_kinds().items():
        assert declared == set(yaml.safe_load(path.read_text(encoding="utf-8"))), path.name


def test_the_sizings_kinds_are_the_same_records_as_in_the_whole_load_from_fewer_files(records) -> None:
    wanted = ("hardware_switches", "links", "price_book", "bom_assumptions", "fabric_settings", "gpus")
    assert sources.of_kinds(*wanted) == [r for r in records if r.kind in wanted]
    read = {path.name for path, declared in sources._declared_kinds().items() if declared & set(wanted)}
    assert "glossary.yaml" not in read and "practice.yaml" not in read and len(read) < len(sources.source_files())
