"""What a customer reads about one server names the link its GPUs really have: the
report, the diagram and the chat summary of an AMD MI300X or an L40S server never say
NVLink or NVSwitch, and an H100 server's still do."""

from __future__ import annotations

import pytest

from advisor.render.markdown import recommendation_markdown
from advisor.render.report import report_html
from advisor.render.svg import topology_svg
from rules import engine
from rules.models import WorkloadProfile


def one_server(gpu: str) -> str:
    rec = engine.recommend(WorkloadProfile(workload="inference", gpu_count=8, gpu_model=gpu))
    return "\n".join([report_html(rec), topology_svg(rec), recommendation_markdown(rec)])


@pytest.mark.parametrize(("gpu", "link"), [("MI300X", "Infinity Fabric"), ("L40S", "PCIe")])
def test_a_server_without_nvlink_is_never_drawn_or_described_with_it(gpu: str, link: str) -> None:
    said = one_server(gpu)
    for claim in ("over NVLink", "NVLink only", "NVSwitch", "NVLink ·"):
        assert claim not in said, claim
    assert link in said


def test_an_nvlink_server_is_still_drawn_with_its_nvswitch() -> None:
    said = one_server("H100")
    assert "NVSwitch" in said and "NVLink" in said
