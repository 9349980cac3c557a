"""GPUs per system come from the hardware catalogue, with the extractor's table as fallback."""

from __future__ import annotations

import pytest

from extraction import extract, systems
from extraction.systems import system_shape


@pytest.fixture
def without_catalogue(monkeypatch):
    system_shape.cache_clear()

    def broken(system_id: str) -> None:
        raise RuntimeError("catalogue unavailable")

    monkeypatch.setattr(systems.catalogue, "server_named", broken)  # every lookup now fails
    yield
    system_shape.cache_clear()


def test_two_dgx_h200_are_sixteen_gpus():
    found = extract("2 DGX H200 for inference").profile
    assert (found.node_count, found.gpus_per_node, found.gpu_count, found.gpu_model) == (2, 8, 16, "H200")


def test_without_the_catalogue_the_fallback_table_answers(without_catalogue):
    shape = system_shape("DGX H200")
    assert shape is not None and shape.source == "extraction table"
    found = extract("16 DGX H100s").profile
    assert (found.node_count, found.gpus_per_node, found.gpu_count) == (16, 8, 128)
    racks = extract("two GB200 NVL72 racks").profile
    assert (racks.node_count, racks.gpus_per_node, racks.gpu_count) == (36, 4, 144)


def test_fallback_table_agrees_with_the_catalogue_where_both_know_a_system():
    catalogue = pytest.importorskip("knowledge.catalogue")
    from extraction.resources import load

    system_shape.cache_clear()
    try:
        for item in load("entities")["system"]["systems"]:
            server = catalogue.server_named(item["id"])
            if server is None:
                continue
            assert server.gpus == item["gpus"], item["id"]
            assert item.get("unit_gpus", item["gpus"]) == max(server.gpus, server.nvlink_domain_gpus), item["id"]
    finally:
        system_shape.cache_clear()


def test_systems_the_catalogue_does_not_know_use_the_table():
    found = extract("4 DGX-2 systems").profile
    assert (found.node_count, found.gpus_per_node, found.gpu_count, found.gpu_model) == (4, 16, 64, "V100")
