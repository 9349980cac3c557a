"""POST /v1/ask answers the three ways the chat does, and carries a conversation on
through the profile the client sends back."""

from __future__ import annotations

import httpx
import pytest

#: our code in another process (make test runs these; make check leaves them out)
pytestmark = pytest.mark.e2e


def ask(client: httpx.Client, question: str, profile: dict | None = None) -> dict:
    body = {"question": question} if profile is None else {"question": question, "profile": profile}
    response = client.post("/v1/ask", json=body)
    assert response.status_code == 200, response.text
    return response.json()


def test_a_workload_gets_a_recommendation(client: httpx.Client) -> None:
    result = ask(client, "pretraining a 70B model on 128 H100s")
    assert result["kind"] == "recommendation"
    assert result["profile"]["gpu_count"] == 128
    assert result["profile"]["workload"] == "training"
    assert result["missing"] == []
    rec = result["recommendation"]
    assert rec["id"] and result["reply"]
    assert client.get(f"/v1/recommendations/{rec['id']}").json() == rec, "ask stores what it recommends"


def test_a_question_gets_an_answer_with_its_source(client: httpx.Client) -> None:
    result = ask(client, "what is PFC?")
    assert result["kind"] == "answer"
    assert result["answer"]["text"] and result["answer"]["source"]
    assert result["recommendation"] is None
    assert result["reply"]


def test_a_question_the_knowledge_base_does_not_cover_says_so(client: httpx.Client) -> None:
    result = ask(client, "What LACP mode should we set for RoCE?")  # (MTU has had an entry since issue 14)
    assert result["kind"] == "answer"
    assert result["answer"]["not_covered"] == ["LACP"]
    assert result["reply"].startswith("My knowledge base has nothing on LACP")
    assert ask(client, "what is PFC?")["answer"]["not_covered"] == []


def test_fabric_settings_are_knowledge_answers(client: httpx.Client) -> None:
    mtu = ask(client, "What MTU should we set for RoCE?")["answer"]
    text = mtu["text"].replace(",", "")  # 4,096 or 4096
    assert mtu["not_covered"] == [] and "4096" in text and "9216" in text
    ecn = ask(client, "what ECN thresholds?")["answer"]
    assert "150 KB" in ecn["text"] and "1,500 KB" in ecn["text"] and ecn["source"]


def test_too_little_gets_a_clarification_naming_what_is_missing(client: httpx.Client) -> None:
    result = ask(client, "we need a network")
    assert result["kind"] == "clarification"
    assert result["missing"] == ["workload", "gpu_count"]
    assert result["recommendation"] is None and result["reply"]


def test_a_size_out_of_range_is_named_in_the_clarification(client: httpx.Client) -> None:
    result = ask(client, "we are training on 5 million GPUs")
    assert result["kind"] == "clarification" and result["missing"] == ["gpu_count"]
    assert result["reply"].startswith('I can\'t size "5 million GPUs": a cluster has 1 to 1,000,000 GPUs.')


def test_the_given_profile_is_merged_with_the_question(client: httpx.Client) -> None:
    first = ask(client, "we need a network for 256 H100s")
    assert first["kind"] == "clarification" and first["missing"] == ["workload"]
    second = ask(client, "it is for training", profile=first["profile"])
    assert second["kind"] == "recommendation"
    assert second["profile"]["gpu_count"] == 256
    assert second["profile"]["workload"] == "training"


def test_a_relative_change_resizes_the_given_profile(client: httpx.Client) -> None:
    first = ask(client, "We will pretrain a 70B model on 128 H100s.")
    second = ask(client, "what if we double it?", profile=first["profile"])
    assert second["kind"] == "recommendation"
    assert second["profile"]["gpu_count"] == 256
    assert second["recommendation"]["profile"]["gpu_count"] == 256


def test_a_budget_for_the_network_alone_is_kept_apart_and_decides_the_fabric(client: httpx.Client) -> None:
    result = ask(client, "We have $350k for the network; training a 70B model on 128 H100s.")
    assert result["kind"] == "recommendation"
    assert result["profile"]["network_budget_usd"] == 350_000 and result["profile"].get("budget_usd") is None
    assert result["recommendation"]["fabric"]["technology"] == "rocev2"
    assert "network budget" in result["reply"]


def test_a_question_over_2000_characters_is_422(client: httpx.Client) -> None:
    response = client.post("/v1/ask", json={"question": "x" * 2001})
    assert response.status_code == 422
    (item,) = response.json()["detail"]
    assert item["loc"] == ["body", "question"]
    assert "2,000" in item["msg"] and "2,001" in item["msg"]


def test_a_bad_profile_in_ask_is_422_naming_the_nested_field(client: httpx.Client) -> None:
    response = client.post("/v1/ask", json={"question": "and now?", "profile": {"gpus_per_node": 500}})
    assert response.status_code == 422
    (item,) = response.json()["detail"]
    assert item["loc"] == ["body", "profile", "gpus_per_node"]
    assert "1 to 72" in item["msg"]


def test_an_empty_question_is_422(client: httpx.Client) -> None:
    response = client.post("/v1/ask", json={"question": ""})
    assert response.status_code == 422


def test_a_stated_parallelism_plan_is_the_plan_the_recommendation_follows(client: httpx.Client) -> None:
    result = ask(client, "pretraining a 405B model on 1024 H100s with TP 8 PP 16")
    assert result["kind"] == "recommendation"
    assert (result["profile"]["tp"], result["profile"]["pp"]) == (8, 16)
    plan = result["recommendation"]["performance"]["plan"]
    assert (plan["tp"], plan["pp"], plan["dp"]) == (8, 16, 1024 // (8 * 16))
    assert plan["tp_source"] == plan["pp_source"] == "stated"
    # a what-if on the plan re-sizes the design shown, keeping the rest of the profile
    again = client.post(
        "/v1/ask",
        json={
            "question": "and with PP 4?",
            "profile": result["profile"],
            "recommendation_id": result["recommendation"]["id"],
        },
    ).json()
    assert again["kind"] == "recommendation"
    assert (
        again["recommendation"]["performance"]["plan"]["tp"],
        again["recommendation"]["performance"]["plan"]["pp"],
    ) == (8, 4)


def test_a_mixture_of_experts_model_is_carried_into_the_profile(client: httpx.Client) -> None:
    result = ask(client, "pretraining a 1T mixture-of-experts model on 512 H100s")
    assert result["kind"] == "recommendation"
    assert result["profile"]["moe"] is True and result["recommendation"]["profile"]["moe"] is True
    assert ask(client, "pretraining a dense 70B model on 512 H100s")["recommendation"]["profile"]["moe"] is False


def test_a_plan_larger_than_the_cluster_gets_a_clarification_not_an_error(client: httpx.Client) -> None:
    result = ask(client, "training on 64 GPUs with TP 8 and PP 16")
    assert result["kind"] == "clarification"
    assert result["recommendation"] is None
    assert "128 GPUs per model replica" in result["reply"] and "64" in result["reply"]
