"""An inference design has no compute ports: the NIC count it is asked for is of the ports
that carry its traffic, never "0 compute ports in all" (advisor.answers.followup)."""

from __future__ import annotations

from advisor.models import AskKind
from tests.service_chat import chain


def test_the_nic_count_of_an_inference_design_counts_its_inference_traffic_ports() -> None:
    _, nics = chain("1,416 H100 for inference", "how many nics do we need?")
    assert nics.kind == AskKind.design_answer
    assert "354 inference-traffic ports in all (2 per server x 177 servers)" in nics.reply
    assert "0 compute ports" not in nics.reply
