"""A conversation that follows the person (issue 24), decided in one place
(advisor.service.understand_message -> understanding.corrections / understanding.context ->
understanding/decisions.yaml), so `ask`, `/v1/ask` and the chat behave the same.

Corrections, one test per kind of language: a contrast ("X not Y", "not Y but X",
"X instead of Y"), a correction marker with a value ("make that", "I meant"), and a bare
number after a marker with a design shown, its unit read from the size it is nearest to.
Follow-ups, one per kind: the last entry's topic biases the search, a fabric swap re-asks
the last question for the other fabric, "it"/"them" bind to the last subject (an entry, or
the design the context carries). The examples are this file's own."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from advisor import service
from advisor.models import AskResult, DialogueContext
from rules.models import ProfileDraft
from understanding import context, corrections

#: 32 servers of 8 H200 on InfiniBand, for fine-tuning
SHOWN = ProfileDraft(
    workload="training", gpu_count=256, node_count=32, gpus_per_node=8, gpu_model="H200", prefer="infiniband"
)


@pytest.fixture(scope="module")
def designed() -> AskResult:
    first = service.ask("we fine-tune on 32 servers of 8 H200 each over InfiniBand")
    assert first.recommendation is not None and first.profile.gpu_count == 256
    return first


def _again(first: AskResult, text: str) -> AskResult:
    assert first.recommendation is not None
    return service.ask(text, profile=first.profile, recommendation_id=first.recommendation.id)


# ----------------------------------------------------------------------------- corrections


@pytest.mark.parametrize(
    ("text", "field", "value"),
    [
        ("whoops, 512 not 256", "gpu_count", 512),  # bare "X not Y": the unit of the number taken back
        ("not 32 servers but 48", "node_count", 48),  # "not Y but X"
        ("Ethernet rather than InfiniBand", "prefer", "ethernet"),  # a fabric against a fabric
        ("inference instead of training", "workload", "inference"),
    ],
)
def test_a_contrast_replaces_the_value_it_names_and_keeps_the_rest(text: str, field: str, value: object) -> None:
    revision = corrections.revise(text, SHOWN, expecting="gpu_count", shown=True)
    assert revision.kind == "contrast"
    assert getattr(revision.merged, field) == value
    assert revision.merged.gpu_model == "H200" and revision.merged.gpus_per_node == 8


def test_a_server_shape_taken_back_keeps_the_server_count_and_recomputes_the_gpus() -> None:
    revision = corrections.revise("my mistake, 4 GPUs a server, not 8", SHOWN, expecting="gpu_count", shown=True)
    assert (revision.merged.node_count, revision.merged.gpus_per_node) == (32, 4)
    assert corrections.changed_line(revision) == "Changed: GPUs 256 -> 128, GPUs per server 8 -> 4."


@pytest.mark.parametrize(
    ("text", "field", "value"),
    [("make that GB200", "gpu_model", "GB200"), ("sorry, I meant serving", "workload", "inference")],
)
def test_a_marker_with_a_value_replaces_that_field(text: str, field: str, value: str) -> None:
    revision = corrections.revise(text, SHOWN, expecting="gpu_count", shown=True)
    assert revision.corrects and str(getattr(revision.merged, field)) == value
    assert revision.merged.node_count is not None or revision.merged.gpu_count is not None


@pytest.mark.parametrize(
    ("text", "field", "value"),
    [("actually 1024", "gpu_count", 1024), ("actually 40", "node_count", 40)],
)
def test_a_bare_number_after_a_marker_takes_the_unit_it_is_nearest_to_and_says_so(
    text: str, field: str, value: int
) -> None:
    revision = corrections.revise(text, SHOWN, expecting="gpu_count", shown=True)
    assert revision.kind == "bare" and getattr(revision.merged, field) == value
    assert f"I read {value:,} as the number of {corrections.LABELS[field]}" in corrections.changed_line(revision)


@pytest.mark.parametrize(
    "text", ["is RoCE not as good as InfiniBand for fine-tuning jobs?", "sorry, what does PFC do?", "we are not sure"]
)
def test_a_question_or_a_not_that_takes_nothing_back_is_no_correction(text: str) -> None:
    assert not corrections.revise(text, SHOWN, shown=True).corrects


def test_ask_re_sizes_a_correction_and_leads_with_what_changed(designed: AskResult) -> None:
    result = _again(designed, "oops, 384 not 256")
    assert result.kind == "recommendation" and result.decided_by == "correction"
    assert result.recommendation is not None and result.recommendation.profile.gpu_count == 384
    assert result.reply.startswith("Changed: GPUs 256 -> 384")
    assert next((c.field, c.before, c.after) for c in result.changed) == ("gpu_count", "256", "384")

    model = _again(designed, "make that B200")
    assert model.recommendation is not None and model.recommendation.profile.gpu_model == "B200"
    assert model.recommendation.profile.gpu_count == 256 and model.reply.startswith("Changed: GPU H200 -> B200.")


# ----------------------------------------------------------------------------- follow-ups


def test_a_follow_up_naming_nothing_is_searched_with_the_last_entry_s_title() -> None:
    last = DialogueContext(question="what is SHARP?", topic="SHARP (in-network reduction)", about="knowledge")
    looked_up = context.resolve("which NCCL setting turns it on?", last)
    assert "sharp" in looked_up.lower()
    bare = context.resolve("and how fast is it?", last)  # names nothing: the entry's title biases it
    assert "in-network" in bare.lower()
    assert context.resolve("what is ECMP?", last) == "what is ECMP?"


def test_a_follow_up_naming_another_fabric_re_asks_the_last_question_for_it() -> None:
    first = service.ask("how does InfiniBand isolate tenants from each other?")
    assert first.context.fabric == "infiniband" and first.context.entry_id
    assert context.swaps_fabric("and on Ethernet?", first.context)
    second = service.ask("and on Ethernet?", context=first.context)
    assert second.answer is not None and second.context.fabric == "ethernet"
    assert "tenan" in (second.answer.topic + second.answer.text).lower()


def test_it_binds_to_the_entry_the_last_answer_came_from() -> None:
    first = service.ask("what is GPUDirect RDMA?")
    second = service.ask("does it need a special NIC?", context=first.context)
    assert second.answer is not None and "gpudirect" in second.context.question.lower()


def test_them_binds_to_the_design_the_context_carries(designed: AskResult) -> None:
    assert designed.context.about == "design" and designed.recommendation is not None
    assert designed.context.recommendation_id == designed.recommendation.id
    result = service.ask("what connects them?", profile=designed.profile, context=designed.context)
    assert result.kind == "design_answer"
    assert "InfiniBand" in result.reply and "Topology" in result.reply


# ----------------------------------------------------------------------------- /v1/ask


@pytest.fixture
def http(client: httpx.Client) -> Iterator[httpx.Client]:
    yield client


def _post(client: httpx.Client, body: dict) -> dict:
    response = client.post("/v1/ask", json=body)
    assert response.status_code == 200, response.text
    return response.json()


def test_the_api_applies_a_correction_and_hands_back_the_design_in_its_context(http: httpx.Client) -> None:
    first = _post(http, {"question": "training on 24 servers with 8 H100 each, RoCE"})
    assert first["context"]["recommendation_id"] == first["recommendation"]["id"]
    body = {"question": "sorry, I meant 16 servers", "profile": first["profile"], "context": first["context"]}
    second = _post(http, body)
    assert second["kind"] == "recommendation" and second["recommendation"]["profile"]["node_count"] == 16
    assert second["reply"].startswith("Changed: GPUs 192 -> 128, servers 24 -> 16.")
    third = _post(http, {"question": "what connects them?", "profile": second["profile"], "context": second["context"]})
    assert third["kind"] == "design_answer" and "Topology" in third["reply"]


def test_the_api_re_asks_the_last_question_for_the_fabric_a_follow_up_names(http: httpx.Client) -> None:
    first = _post(http, {"question": "how does InfiniBand isolate tenants from each other?"})
    alone = _post(http, {"question": "and on Ethernet?"})
    second = _post(http, {"question": "and on Ethernet?", "context": first["context"]})
    assert second["context"]["fabric"] == "ethernet"
    assert second["answer"]["topic"] != (alone.get("answer") or {}).get("topic")


@pytest.mark.parametrize(
    "bad",
    [
        {"question": "x", "about": "weather"},
        {"question": "x", "recommendation_id": "../../etc/passwd"},
        {"question": "x", "entry_id": "Not An Id!"},
        {"question": "x", "fabric": "Token Ring"},
    ],
)
def test_the_api_refuses_a_malformed_context(http: httpx.Client, bad: dict) -> None:
    response = http.post("/v1/ask", json={"question": "and ECN?", "context": bad})
    assert response.status_code == 422


def test_a_rack_count_taken_back_keeps_the_rack_s_server_shape() -> None:
    # GB200 NVL72 as the designs size it: 18 compute trays of 4 GPUs a rack
    racks = ProfileDraft(workload="inference", gpu_model="GB200", gpu_count=216, node_count=54, gpus_per_node=4)
    revision = corrections.revise("oh, 6 racks rather than 3", racks, expecting="gpu_count", shown=True)
    assert (revision.merged.node_count, revision.merged.gpus_per_node) == (108, 4)
    assert corrections.changed_line(revision) == "Changed: GPUs 216 -> 432, servers 54 -> 108."
