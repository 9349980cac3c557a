"""The all-reduce estimate: ring model of nccl-tests, NVLink inside a node, NICs across."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.sizing import allreduce_estimate, default_message_bytes

H100 = dict(gpus_per_node=8, nvlink_busbw_gbytes=480, nic_busbw_gbytes=47, nvlink_latency_us=3, network_latency_us=5)


def test_seventy_billion_on_128_h100_takes_about_three_quarters_of_a_second():
    e = allreduce_estimate(default_message_bytes(70), gpus=128, **H100)
    assert e.bottleneck == "network"
    assert e.effective_busbw_gbytes == 376
    assert 350 * 0.75 <= e.effective_busbw_gbytes <= 390 * 1.25  # nccl-tests: ~350-390 GB/s
    assert e.ms == pytest.approx(2 * 127 / 128 * 140e9 / 376e9 * 1e3, rel=1e-3)
    assert 700 < e.ms < 780
    assert e.nodes == 16


def test_single_node_uses_nvlink_only():
    e = allreduce_estimate(10**9, gpus=8, **H100)
    assert (e.bottleneck, e.effective_busbw_gbytes, e.nodes) == ("nvlink", 480, 1)
    assert e.latency_ms == pytest.approx(2 * 7 * 3 / 1000)
    # the NIC bandwidth plays no part inside one node
    assert allreduce_estimate(10**9, gpus=8, **(H100 | dict(nic_busbw_gbytes=1))).ms == e.ms


def test_nvlink_is_the_bottleneck_when_nics_outrun_it():
    e = allreduce_estimate(10**9, gpus=64, **(H100 | dict(nic_busbw_gbytes=100)))
    assert (e.bottleneck, e.effective_busbw_gbytes) == ("nvlink", 480)


def test_latency_term_counts_nvlink_and_network_steps():
    e = allreduce_estimate(0, gpus=32, **H100)  # 4 nodes of 8
    assert e.ms == e.latency_ms == pytest.approx((2 * 7 * 3 + 2 * 3 * 5) / 1000)


def test_small_messages_are_latency_bound():
    e = allreduce_estimate(1024, gpus=1024, **H100)
    assert e.latency_ms > e.ms / 2


def test_one_gpu_has_nothing_to_reduce():
    e = allreduce_estimate(10**9, gpus=1, **H100)
    assert e.ms == 0


def test_message_is_two_bytes_per_parameter():
    assert default_message_bytes(70) == 140_000_000_000
    assert default_message_bytes(0.5) == 1_000_000_000


def test_assumptions_are_sentences_naming_the_model():
    text = " ".join(allreduce_estimate(10**9, gpus=128, **H100).assumptions)
    for phrase in ("achievable", "Ring", "SHARP", "overlap", "bf16"):
        assert phrase in text


@given(st.integers(2, 2000), st.integers(1, 10**11), st.sampled_from([1, 4, 8]))
def test_more_nodes_are_never_faster_for_the_same_per_gpu_message(nodes, message, gpn):
    args = H100 | dict(gpus_per_node=gpn)
    fewer = allreduce_estimate(message, gpus=nodes * gpn, **args)
    more = allreduce_estimate(message, gpus=(nodes + 1) * gpn, **args)
    assert more.ms >= fewer.ms
