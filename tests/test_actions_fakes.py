"""Stand-ins for the advisor service in action unit tests, and `Tracker.from_dict` helpers.

The action tests pin what the actions do with the advisor's results (which events,
which replies, which channel payloads), not what the rules decide, so they use a fixed,
hand-built Recommendation and record what the actions asked the service for.
"""

from __future__ import annotations

import hashlib
import sys
import types
from collections.abc import Iterator
from typing import Any

import pytest
from rasa_sdk import Tracker
from rasa_sdk.executor import CollectingDispatcher

from rules.models import Recommendation, WorkloadProfile

PROFILE_SLOTS = (
    "workload",
    "gpu_count",
    "gpus_per_node",
    "node_count",
    "gpu_model",
    "model_params_b",
    "budget_usd",
    "cost_sensitive",
    "existing_ethernet",
    "prefer",
)


@pytest.fixture(autouse=True)
def fresh_turns() -> Iterator[None]:
    """No decision kept from another test's turn: every test's tracker is conversation
    "test" at its first message, so a kept decision (bot.actions.respond.turn) would
    otherwise answer the next test's message of the same words. Autouse in each module
    that imports it."""
    from bot.actions import respond

    respond._turns.clear()
    yield
    respond._turns.clear()


def install_service_stubs() -> None:
    """Make `advisor.service` and `advisor.render.slack` importable while they are being
    written (the tests replace the functions they use with fakes anyway)."""
    try:
        import advisor.service
    except ImportError:
        stub = types.ModuleType("advisor.service")
        for name in ("recommend", "get_recommendation", "answer", "ask"):
            setattr(stub, name, _missing(name))
        sys.modules["advisor.service"] = stub
        import advisor

        advisor.service = stub
    try:
        import advisor.render.slack
    except ImportError:
        stub = types.ModuleType("advisor.render.slack")
        stub.markdown_to_mrkdwn = lambda text: text.replace("**", "*")
        stub.recommendation_blocks = lambda rec, diagram_url=None: [
            {"type": "section", "text": {"type": "mrkdwn", "text": f"*{rec.fabric.name}*"}}
        ]
        sys.modules["advisor.render.slack"] = stub
        import advisor.render

        advisor.render.slack = stub


def _missing(name: str):
    def fail(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"advisor.service.{name} is not written yet")

    return fail


def fake_recommendation(profile: WorkloadProfile, technology: str = "infiniband_ndr") -> Recommendation:
    """A small, valid Recommendation for profile; its id depends on the profile."""
    link = 400
    body = {
        "profile": profile.model_dump(),
        "fabric": {
            "technology": technology,
            "name": {"infiniband_ndr": "InfiniBand NDR (400 Gb/s)", "rocev2": "RoCEv2 over 400GbE"}.get(
                technology, technology
            ),
            "link_gbps": link,
            "switch_model": "NVIDIA Quantum-2 QM9700",
            "switch_radix": 64,
            "nic_model": "ConnectX-7",
            "latency_us": "<1",
        },
        "topology": {
            "kind": "rail_optimized" if profile.gpu_count >= 64 else "fat_tree",
            "tiers": 2,
            "endpoints": profile.gpu_count,
            "radix": 64,
            "rails": 8,
            "leaf_switches": max(1, profile.gpu_count // 32),
            "spine_switches": max(1, profile.gpu_count // 64),
            "core_switches": 0,
            "cables": [{"tier": "node-leaf", "count": profile.gpu_count, "gbps": link}],
            "bisection_gbps": profile.gpu_count * link / 2,
        },
        "ports_per_server": [{"role": "compute", "count": 8, "gbps": link, "note": "one per GPU"}],
        "cost": {
            "network_usd_low": 1_000 * profile.gpu_count,
            "network_usd_high": 2_000 * profile.gpu_count,
            "basis": "fake",
        },
        "performance": {"allreduce_ms": 123.4, "relative_training_throughput": 1.0},
        "alternatives": [
            {
                "technology": "rocev2",
                "name": "RoCEv2 over 400GbE",
                "link_gbps": 400,
                "network_usd_low": 700 * profile.gpu_count,
                "network_usd_high": 1_500 * profile.gpu_count,
                "relative_training_throughput": 0.9,
                "allreduce_ms": 140.0,
                "latency_us": "1-5",
                "operational_complexity": "high",
                "trade_off": "cheaper, needs PFC/ECN tuning",
            }
        ],
        "explanation": [
            {
                "rule_id": "training-16plus-infiniband",
                "statement": "Training on 16+ GPUs wants InfiniBand.",
                "source": "Seed guide, 'Choosing a fabric'",
            },
            {
                "rule_id": "rail-optimized-64plus",
                "statement": "64+ GPUs: rail-optimized.",
                "source": "NVIDIA DGX SuperPOD reference architecture",
            },
        ],
    }
    rec = Recommendation.model_validate(body)
    digest = hashlib.sha256(rec.model_dump_json().encode()).hexdigest()[:12]
    return rec.model_copy(update={"id": f"r_{digest}"})


class FakeService:
    """Records calls; recommends with fake_recommendation and keeps what it stored."""

    def __init__(self) -> None:
        self.stored: dict[str, Recommendation] = {}
        self.answers: dict[str, Any] = {}
        self.calls: list[tuple[str, Any]] = []

    def recommend(self, profile: WorkloadProfile, save: bool = True) -> Recommendation:
        self.calls.append(("recommend", profile))
        rec = fake_recommendation(profile)
        self.stored[rec.id] = rec
        return rec

    def get_recommendation(self, rec_id: str) -> Recommendation | None:
        return self.stored.get(rec_id)

    def answer(self, question: str, min_relevance: float = 0.0):
        self.calls.append(("answer", question))
        return self.answers.get(question)


def tracker(
    slots: dict[str, Any] | None = None,
    text: str = "hello",
    intent: str = "inform",
    channel: str = "rest",
    events_after_user: list[dict[str, Any]] | None = None,
    active_loop: str | None = None,
    requested_slot: str | None = None,
    history: list[dict[str, Any]] | None = None,
) -> Tracker:
    """A Tracker (as Rasa sends it) whose latest user message is text, after the events
    of `history` (earlier turns: their slot events, say)."""
    all_slots = {name: None for name in PROFILE_SLOTS}
    all_slots.update({"recommendation_id": None, "requested_slot": requested_slot})
    all_slots.update(slots or {})
    latest = {
        "text": text,
        "intent": {"name": intent, "confidence": 0.9},
        "entities": [],
        "intent_ranking": [{"name": intent, "confidence": 0.9}],
    }
    events = [
        *(history or []),
        {"event": "action", "name": "action_listen"},
        {"event": "user", "text": text, "parse_data": latest, "input_channel": channel},
        *(events_after_user or []),
    ]
    return Tracker.from_dict(
        {
            "sender_id": "test",
            "slots": all_slots,
            "latest_message": latest,
            "events": events,
            "paused": False,
            "followup_action": None,
            "active_loop": {"name": active_loop} if active_loop else {},
            "latest_action_name": events[-1].get("name") if events[-1]["event"] == "action" else "action_listen",
        }
    )


def slot_event(name: str, value: Any) -> dict[str, Any]:
    return {"event": "slot", "name": name, "value": value}


def texts(dispatcher: CollectingDispatcher) -> list[str]:
    return [m["text"] for m in dispatcher.messages if m.get("text")]


def customs(dispatcher: CollectingDispatcher) -> list[dict[str, Any]]:
    return [m["custom"] for m in dispatcher.messages if m.get("custom")]


def slots_of(events: list[dict[str, Any]]) -> dict[str, Any]:
    return {e["name"]: e["value"] for e in events if e.get("event") == "slot"}


def test_fake_recommendation_is_valid_and_keyed_by_profile():
    small = fake_recommendation(WorkloadProfile(workload="training", gpu_count=64))
    big = fake_recommendation(WorkloadProfile(workload="training", gpu_count=256))
    assert small.id != big.id
    assert small.profile.node_count == 8
