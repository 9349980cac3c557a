"""Ports per server: a dedicated compute port per GPU for training, none for inference."""

import pytest

from rules.models import PortRole
from rules.sizing import ports_per_server


def by_role(ports):
    return {p.role: p for p in ports}


@pytest.mark.parametrize("workload", ["training", "mixed"])
def test_training_gets_one_compute_port_per_gpu(workload):
    ports = by_role(ports_per_server(workload, gpus_per_node=8, compute_gbps=400))
    assert (ports[PortRole.compute].count, ports[PortRole.compute].gbps) == (8, 400)
    assert "one dedicated" in ports[PortRole.compute].note
    assert {PortRole.storage, PortRole.inband_management, PortRole.out_of_band} <= ports.keys()
    assert (ports[PortRole.storage].count, ports[PortRole.storage].gbps) == (2, 100)
    assert (ports[PortRole.inband_management].count, ports[PortRole.inband_management].gbps) == (2, 10)


def test_inference_gets_no_compute_ports_but_inference_traffic_and_management():
    ports = by_role(ports_per_server("inference", gpus_per_node=8, compute_gbps=400, compute_ports=8))
    assert PortRole.compute not in ports
    assert (ports[PortRole.inference_traffic].count, ports[PortRole.inference_traffic].gbps) == (2, 100)
    assert "all-reduce" in ports[PortRole.inference_traffic].note
    assert ports[PortRole.inband_management].count == 1
    assert PortRole.out_of_band in ports


def test_inference_ports_can_be_400gbe():
    ports = by_role(ports_per_server("inference", 4, 400, inference=(2, 400)))
    assert ports[PortRole.inference_traffic].gbps == 400


def test_catalogue_facts_override_the_defaults_and_zero_ports_are_left_out():
    ports = by_role(ports_per_server("training", 8, 400, storage=(2, 400), oob=(0, 1)))
    assert ports[PortRole.storage].gbps == 400
    assert PortRole.out_of_band not in ports


def test_fewer_compute_ports_than_gpus_is_flagged_in_the_note():
    ports = by_role(ports_per_server("training", 8, 400, compute_ports=4))
    assert ports[PortRole.compute].count == 4
    assert "share" in ports[PortRole.compute].note


def test_unknown_workload_is_refused():
    with pytest.raises(ValueError, match="workload"):
        ports_per_server("gaming", 8, 400)
