"""The catalogue gives the sizing typed hardware, link and cost facts, with the vendor's
figures where the guide is wrong."""

from __future__ import annotations

import pytest

from knowledge import catalogue
from knowledge.catalogue import NotInCatalogue
from rules.models import Technology, WorkloadProfile
from rules.servers import resolve


def test_server_for_gpu_model_is_case_insensitive():
    assert catalogue.server_for("h100").model == "DGX H100"
    assert catalogue.server_for("NVIDIA H100 SXM5").model == "DGX H100"
    assert catalogue.server_for("H200").model == "DGX H200"
    assert catalogue.server_for("b200").model == "DGX B200"
    assert catalogue.server_for("GB200 NVL72").model == "GB200 NVL72"
    assert catalogue.server_for("mi300x").gpus == 8
    assert catalogue.server_for(None) is None
    assert catalogue.server_for("V100") is None
    assert catalogue.server_for("L40") is None  # not the L4


def test_a100_servers_carry_hdr_200():
    assert catalogue.server_for("A100").compute_gbps == 200
    assert catalogue.max_nic_gbps("A100") == 200


def test_dgx_h100_and_h200_compute_ports_are_8_x_400_connectx7():
    for gpu in ("H100", "H200"):
        server = catalogue.server_for(gpu)
        assert (server.compute_ports, server.compute_gbps, server.compute_nic) == (8, 400, "ConnectX-7")
        assert "OSFP" in server.compute_connector
    assert "HDR200" in catalogue.server_for("H100").note


def test_server_named_by_model_or_alias():
    assert catalogue.server_named("DGX-H200").model == "DGX H200"
    assert catalogue.server_named("dgx h100").model == "DGX H100"
    assert catalogue.server_named("HGX H100").model == "HGX H100 8-GPU"
    assert catalogue.server_named("2 x dgx-h200") is None
    assert catalogue.server_named("") is None


def test_default_gpus_per_node():
    assert catalogue.default_gpus_per_node("H100") == 8
    assert catalogue.default_gpus_per_node("GB200") == 72  # the NVL72 rack: one NVLink domain
    assert catalogue.server_for("GB200").nvlink_domain_gpus == 72
    assert catalogue.default_gpus_per_node("unknown") is None
    assert catalogue.default_gpus_per_node(None) is None


def test_the_rules_use_the_catalogue_for_gpus_per_node():
    # the contract no longer reads the catalogue; rules.servers.resolve applies the server's
    profile = resolve(WorkloadProfile(workload="training", gpu_count=128, gpu_model="H100"))
    assert (profile.gpus_per_node, profile.node_count) == (8, 16)


def test_gpu_models_known():
    assert {"H100", "H200", "B200", "GB200", "A100", "L40S", "L4", "MI300X"} <= set(catalogue.gpu_models())


def test_every_server_has_consistent_ports():
    for server in catalogue.servers():
        if server.form == "sxm":
            assert server.compute_ports >= 1 and server.compute_gbps > 0, server.model
            assert catalogue.nic(server.compute_nic).max_gbps >= server.compute_gbps
        else:
            assert server.inference_ports == 2 and server.inference_gbps in (100, 400)
        assert server.oob_ports >= 1 and server.source


def test_switch_radix():
    assert catalogue.switch("QM9700").radix_at(400) == 64
    assert catalogue.switch("QM9700").radix_at(200) == 128
    assert catalogue.switch("QM8700").radix_at(200) == 40
    assert catalogue.switch("Q3400").radix_at(800) == 144
    assert catalogue.switch("SN5600").radix_at(800) == 64
    assert catalogue.switch("SN5600").radix_at(400) == 128
    assert catalogue.switch("sn4600c").radix_at(100) == 64
    assert catalogue.switch("QM8700").radix_at(400) == 0  # no port that fast
    assert not catalogue.switch("QM8700").supports(400)
    with pytest.raises(NotInCatalogue):
        catalogue.switch("QM1234")


@pytest.mark.parametrize(
    "technology, gbps, model",
    [
        ("infiniband_hdr", 200, "QM8700"),
        ("infiniband_ndr", 400, "QM9700"),
        ("infiniband_xdr", 800, "Q3400"),
        ("rocev2", 400, "SN5600"),
        ("rocev2", 800, "SN5600"),
        ("ethernet", 100, "SN4600C"),
        (Technology.infiniband_ndr, 400, "QM9700"),
    ],
)
def test_switch_for_technology(technology, gbps, model):
    assert catalogue.switch_for(technology, gbps).model == model


def test_switch_generations_follow_the_vendor():
    assert catalogue.switch("QM8700").generation == "hdr"
    assert catalogue.switch("Quantum-2").generation == "ndr"
    assert catalogue.switch("Quantum-X800").generation == "xdr"


def test_switch_for_impossible_combination_raises():
    with pytest.raises(NotInCatalogue):
        catalogue.switch_for("infiniband_hdr", 800)
    with pytest.raises(NotInCatalogue):
        catalogue.switch_for("nvlink_only", 900)


def test_nics():
    models = {n.model: n for n in catalogue.nics()}
    assert models["ConnectX-6"].max_gbps == 200
    assert models["ConnectX-7"].max_gbps == 400
    assert models["ConnectX-8"].max_gbps == 800
    assert models["BlueField-3"].max_gbps == 400
    assert "infiniband_ndr" in models["ConnectX-7"].protocols


def test_links_per_technology():
    assert catalogue.link("infiniband_ndr").achievable_busbw_gbytes == pytest.approx(47)
    assert catalogue.link("infiniband_hdr", 200).nominal_gbps == 200
    assert catalogue.link("rocev2", 400).nominal_gbps == 400
    assert catalogue.link("rocev2", 100).nominal_gbps == 100
    assert catalogue.link("ethernet", 400).latency_us_model > catalogue.link("rocev2", 400).latency_us_model
    assert catalogue.link("infiniband_ndr").latency_us_typical == "<1"
    # RoCE 10-20 % below InfiniBand at the same speed
    ratio = (
        catalogue.link("rocev2", 400).achievable_busbw_gbytes
        / catalogue.link("infiniband_ndr", 400).achievable_busbw_gbytes
    )
    assert 0.8 <= ratio <= 0.9
    with pytest.raises(NotInCatalogue):
        catalogue.link("carrier_pigeon")


def test_intra_node_link_per_gpu():
    assert catalogue.nvlink("H100").achievable_busbw_gbytes == pytest.approx(480)
    assert catalogue.nvlink("A100").achievable_busbw_gbytes == pytest.approx(230)
    assert catalogue.nvlink("L40S").technology == "pcie"
    assert catalogue.nvlink("MI300X").technology == "infinity_fabric"
    assert catalogue.nvlink(None).technology == "nvlink"


def test_cost_reference_reproduces_the_guide():
    """The guide's figures, kept as the bill of materials' calibration check."""
    ref = catalogue.cost_reference()
    assert (ref.nodes, ref.server_model) == (16, "DGX H100")
    assert ref.infiniband_usd == (200_000, 400_000)
    assert ref.ethernet_400g_usd == (80_000, 150_000)
    assert ref.infiniband_premium_factor == (2, 3)
    assert (ref.example_cluster_usd, ref.example_premium_usd, ref.example_premium_share_pct) == (5_000_000, 200_000, 4)
    assert ref.includes == ["switches", "cables", "NICs"]


def test_guides_infiniband_figure_is_read_as_the_ndr_fabric_a_dgx_h100_has():
    ref = catalogue.cost_reference()
    assert (ref.infiniband_generation, ref.infiniband_gbps) == ("NDR", 400)
    assert "HDR" in ref.note


def test_roce_checklist():
    settings = [item.setting for item in catalogue.roce_checklist()]
    assert settings[:3] == ["PFC", "ECN", "DCQCN"]
