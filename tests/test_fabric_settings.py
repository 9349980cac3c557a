"""What a fabric needs configured: concrete values with vendor sources, per fabric and switch
family, validated when loaded, served in the recommendation with targets to test against."""

from __future__ import annotations

import re

import pytest

from knowledge import fabric_settings, sources
from rules.engine import recommend
from rules.models import WorkloadProfile


def advise(**fields):
    return recommend(WorkloadProfile(workload="training", **fields))


def by_setting(rec):
    assert rec.fabric_configuration is not None
    return {s.setting: s for s in rec.fabric_configuration.settings}


def test_roce_gets_numbers_for_pfc_ecn_ets_dscp_mtu_and_nccl():
    rec = advise(gpu_count=256, gpu_model="H100", prefer="rocev2")
    settings = by_setting(rec)
    assert "priority 3" in settings["PFC"].value
    assert re.search(r"min 150 KB, max 1,500 KB", settings["ECN"].value)
    assert "strict" in settings["ETS"].value and "50 %" in settings["ETS"].value
    assert "DSCP 26" in settings["QoS / DSCP mapping"].value and "DSCP 48" in settings["QoS / DSCP mapping"].value
    assert "9216" in settings["MTU"].value and "4096" in settings["MTU"].value
    assert any("NCCL_IB_TC=106" in s.value for s in settings.values())
    assert "DCQCN alternative" in settings and "Meta" in settings["DCQCN alternative"].source
    for setting in rec.fabric_configuration.settings:
        assert setting.source


def test_roce_checklist_carries_the_concrete_switch_and_nic_settings():
    rec = advise(gpu_count=256, gpu_model="H100", prefer="rocev2")
    assert {"PFC", "ECN", "DCQCN", "PFC headroom", "PFC watchdog"} <= {s.setting for s in rec.roce_configuration}


def test_headroom_grows_with_cable_length_and_link_speed():
    room = fabric_settings.headroom()
    assert room.bytes_at(400, 5) < room.bytes_at(400, 100)
    assert room.bytes_at(200, 100) < room.bytes_at(400, 100) < room.bytes_at(800, 100)
    # 2 x 9216 + (2 x 100 m x 5 ns + 1159 ns) x 50 bytes/ns at 400G
    assert room.bytes_at(400, 100) == pytest.approx(2 * 9216 + (1000 + 1159) * 50)


def test_infiniband_gets_subnet_manager_adaptive_routing_and_sharp():
    rec = advise(gpu_count=1024, gpu_model="H100")
    assert rec.fabric.technology.startswith("infiniband")
    settings = by_setting(rec)
    assert "ftree" in settings["Subnet manager routing engine"].value
    assert "NCCL_IB_AR_THRESHOLD" in settings["Adaptive routing"].value
    assert "NCCL_COLLNET_ENABLE=1" in settings["SHARP"].value
    assert rec.roce_configuration == []


def test_validation_targets_follow_the_fabric_and_the_gpus():
    ib = advise(gpu_count=128, gpu_model="H100")
    roce = advise(gpu_count=128, gpu_model="H100", prefer="rocev2")
    targets = {
        rec.fabric.technology: {t.setting.split(" on ")[-1]: t.value for t in rec.fabric_configuration.validation}
        for rec in (ib, roce)
    }
    ib_busbw = float(re.search(r"about ([\d,]+) GB/s", targets["infiniband_ndr"]["all 128 GPUs (NCCL_ALGO=Ring)"])[1])
    roce_busbw = float(re.search(r"about ([\d,]+) GB/s", targets["rocev2"]["all 128 GPUs (NCCL_ALGO=Ring)"])[1])
    assert 368 * 0.8 <= ib_busbw <= 384 * 1.2  # nccl-tests #290: 46-48 GB/s per NDR NIC x 8
    assert roce_busbw < ib_busbw
    assert any("ib_write_bw" in t.setting for t in ib.fabric_configuration.validation)


def test_a_single_server_has_no_fabric_to_configure():
    assert advise(gpu_count=8, gpu_model="H100").fabric_configuration is None


def test_a_setting_without_a_value_fails_when_the_sources_load(tmp_path):
    bad = (
        "fabric_settings:\n  - id: fabric-bad\n    title: x\n    text: y\n    source: z\n"
        "    fabric: roce\n    switch_families: [any]\n    area: switch\n    setting: PFC\n    why: w\n"
    )
    (tmp_path / "fabric_settings.yaml").write_text(bad)
    # the sources' own schema (knowledge/schemas.py) refuses it, naming the entry and field
    with pytest.raises(sources.SourceError, match=r"fabric-bad: value: Field required"):
        sources.load(tmp_path)


def test_switch_families_come_from_the_switch_name():
    assert fabric_settings.switch_family("NVIDIA Spectrum-4 SN5600") == "spectrum"
    assert fabric_settings.switch_family("NVIDIA Quantum-2 QM9700") == "quantum"
    assert fabric_settings.switch_family(None) == "any"


@pytest.mark.parametrize("fabric, family", [("roce", "spectrum"), ("infiniband", "quantum"), ("ethernet", "any")])
def test_every_fabric_has_validated_settings(fabric, family):
    settings = fabric_settings.settings(fabric, family)
    assert settings and all(s.value and s.source for s in settings)
