"""GPUs per system come from the hardware catalogue alone: entities.yaml holds only the
names people write, the catalogue (knowledge/sources/hardware.yaml) the numbers."""

from __future__ import annotations

import pytest

from knowledge import catalogue
from understanding.extraction import extract, systems
from understanding.extraction.resources import load
from understanding.extraction.systems import system_shape


@pytest.fixture
def clear_shapes():
    system_shape.cache_clear()
    yield
    system_shape.cache_clear()


def test_two_dgx_h200_are_sixteen_gpus():
    found = extract("2 DGX H200 for inference").profile
    assert (found.node_count, found.gpus_per_node, found.gpu_count, found.gpu_model) == (2, 8, 16, "H200")


def test_rack_scale_systems_count_racks_of_trays():
    racks = extract("two GB200 NVL72 racks").profile
    assert (racks.node_count, racks.gpus_per_node, racks.gpu_count) == (36, 4, 144)
    assert extract("4 HGX A100 servers").profile.gpu_count == 32


def test_entities_yaml_holds_no_gpu_numbers():
    for item in load("entities")["system"]["systems"]:
        assert set(item) <= {"id", "aliases", "in_catalogue"}, item["id"]


def test_every_system_the_extractor_names_is_in_the_catalogue_unless_marked():
    for item in load("entities")["system"]["systems"]:
        known = catalogue.server_named(item["id"]) is not None
        assert known == item.get("in_catalogue", True), item["id"]  # flip the flag when hardware.yaml gains it


@pytest.mark.usefixtures("clear_shapes")
def test_the_count_follows_the_catalogue(monkeypatch):
    server = catalogue.server_named("DGX H100")
    monkeypatch.setattr(
        systems.catalogue, "server_named", lambda name: server.model_copy(update={"gpus": 4, "nvlink_domain_gpus": 4})
    )
    found = extract("16 DGX H100s").profile
    assert (found.node_count, found.gpus_per_node, found.gpu_count) == (16, 4, 64)


def test_a_system_the_catalogue_does_not_carry_is_named_but_not_counted():
    assert system_shape("DGX-2") is None
    found = extract("4 DGX-2 systems").profile
    # the name keeps its digit: nothing reads as 2 servers or 2 GPUs
    assert (found.node_count, found.gpus_per_node, found.gpu_count, found.gpu_model) == (None, None, None, None)


def test_racks_of_a_rack_scale_system_are_its_nodes():
    """An NVL72 rack is one node (one NVLink domain), so "8 racks" beside GB200 NVL72 is the
    node count; racks of 8-GPU servers say nothing about how many servers."""
    assert extract("looking at GB200 NVL72, 8 racks, training a 1T MoE").profile.node_count == 8
    assert extract("8 racks of H100 servers for training").profile.node_count is None
    four = extract("4 GB300 racks for inference").profile  # racks, not 4 GPUs; each of 72
    assert (four.node_count, four.gpus_per_node, four.gpu_count) == (4, 72, 288)
    assert extract("we bought 16 H100 racks").profile.gpu_count is None


def test_racks_after_a_rack_scale_design_are_its_racks():
    """ "what if 16 racks?" after a GB200 NVL72 design: racks of the GPU named before, 72
    GPUs each (not the earlier design's 4-GPU compute trays); after an H100 design, a rack
    count says nothing about servers."""
    more = extract("what if 16 racks", known_model="GB200").profile
    assert (more.node_count, more.gpus_per_node, more.gpu_count) == (16, 72, 1152)
    assert extract("What if we had three racks?", known_model="GB300").profile.gpu_count == 216
    assert extract("what if 16 racks", known_model="H100").profile.node_count is None
