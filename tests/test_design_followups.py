"""Questions about the design on the table that name a figure of it, answered from it
(advisor.answers.followup through `ask`, the path the API, the CLI and the chat's dispatcher
take): a figure asked after an answer about the design is asked of the design, the link
inside a server is the scale-up link, a switch tier the design has none of is said to be
absent, a network budget is what "does it fit?" is measured against, and "how many GPUs
is that?" reads the design's size back."""

from __future__ import annotations

from advisor import service
from advisor.models import AskResult


def _design(text: str) -> AskResult:
    first = service.ask(text)
    assert first.recommendation is not None
    return first


def _then(first: AskResult, text: str, *, with_context: bool = True) -> AskResult:
    assert first.recommendation is not None
    return service.ask(
        text,
        profile=first.profile,
        recommendation_id=first.recommendation.id,
        context=first.context if with_context else None,
    )


def test_a_figure_asked_after_an_answer_about_the_design_is_asked_of_the_design() -> None:
    first = _design("We now need 64 H100 GPUs for inference with an InfiniBand fabric.")
    switches = _then(first, "How many switches?")
    assert switches.kind == "design_answer" and switches.context.about == "design"
    cost = _then(switches, "What is the cost per GPU?")
    assert cost.kind == "design_answer" and cost.decided_by == "about_shown_design"
    assert "per GPU" in cost.reply and "$" in cost.reply
    # the same words with no answer about the design before them stand alone
    alone = _then(switches, "What is the cost per GPU?", with_context=False)
    assert alone.kind != "design_answer"


def test_what_connects_the_gpus_inside_a_server_is_the_scale_up_link() -> None:
    first = _design("We need an inference cluster of 32 H100 GPUs, 4 per server.")
    reply = _then(first, "What connects the GPUs inside each server?").reply
    assert "**Inside each server:** NVLink" in reply and "joins its 4 GPUs" in reply


def test_a_switch_tier_the_design_has_none_of_is_said_to_be_absent() -> None:
    first = _design("Please design a network for 64 B200 GPUs for inference.")
    assert first.recommendation is not None and first.recommendation.topology.tiers == 1
    reply = _then(first, "How many spine switches does it have?").reply
    assert "**Spine switches:** none" in reply


def test_does_it_fit_is_measured_against_the_network_budget_given() -> None:
    first = _design("1024 h100 training, network budget 3M")
    reply = _then(first, "does it fit?").reply
    assert "$3,000,000 network budget" in reply


def test_how_many_gpus_is_that_reads_the_design_size_back() -> None:
    first = _design("size 4 nvl72 racks of gb200 for training")
    answer = _then(first, "how many gpus is that")
    assert answer.kind == "design_answer" and "288 GPUs" in answer.reply


def test_why_asked_of_the_design_gives_every_rule_with_its_source() -> None:
    """The design's own "Ask "why?"" works through `ask` too, in its bare and its worded forms."""
    first = _design("design for 256 h100 training")
    for text in ("why?", "why this design?", "explain the recommendation", "why rail optimized?", "why ib?"):
        why = _then(first, text)
        assert why.kind == "design_answer" and why.decided_by == "about_shown_design", text
        assert "**Why InfiniBand NDR" in why.reply and "Source:" in why.reply, text


def test_why_a_fabric_the_design_does_not_use_leads_with_what_it_would_mean() -> None:
    first = _design("design for 256 h100 training, we'd like roce")
    why = _then(first, "why not just ib?")
    assert why.kind == "design_answer" and "Why not InfiniBand" in why.reply


def test_a_question_that_only_starts_with_why_is_no_question_about_the_design() -> None:
    first = _design("design for 256 h100 training")
    general = _then(first, "why is pfc needed for roce?")
    assert general.kind == "answer" and "**Why InfiniBand NDR" not in general.reply


def test_same_on_another_fabric_is_a_what_if_on_the_design() -> None:
    first = _design("design for 256 h100 training")
    for text in ("same on roce?", "same thing but spectrum-x", "ok, now with ethernet?", "redo it with roce"):
        what_if = _then(first, text)
        assert what_if.kind == "recommendation" and what_if.decided_by == "what_if_on_design", text
        assert what_if.recommendation is not None and what_if.recommendation.fabric.technology != "infiniband_ndr"
    # the same words inside a question about a setting ask about the setting
    setting = _then(first, "is pfc the same on roce?")
    assert setting.kind != "recommendation"


def test_a_failure_asked_of_a_one_plane_design_says_what_a_leaf_and_a_spine_cost() -> None:
    first = _design("512 b200 training on spectrum-x")
    for text in ("and if a leaf dies mid job?", "what happens when a spine fails?", "is it redundant?"):
        failure = _then(first, text)
        assert failure.kind == "design_answer", text
        assert "**A leaf fails:**" in failure.reply and "**A spine fails:**" in failure.reply, text
        assert "Seed guide" not in failure.reply


def test_a_failure_asked_of_twin_planes_keeps_the_job_running_on_the_other_plane() -> None:
    first = _design("1024 b300 training on spectrum-x")
    failure = _then(first, "what if a leaf goes down?")
    assert failure.kind == "design_answer" and "half their bandwidth" in failure.reply


def test_a_cheaper_topology_asked_of_the_design_quotes_that_topology_beside_the_cost() -> None:
    first = _design("Please propose a training fabric for 2,048 H100 GPUs.")
    rail_only = _then(first, "Would a rail-only design be cheaper for this cluster?")
    assert rail_only.kind == "design_answer" and "**Rail-only network**" in rail_only.reply
    assert "Seed guide" not in rail_only.reply  # quoted entries name the guide by its title


def test_the_switches_trust_mode_is_a_qos_setting_of_the_design() -> None:
    first = _design("512 b200 training on spectrum-x")
    trust = _then(first, "trust mode on the switches?")
    assert trust.kind == "design_answer" and "DSCP" in trust.reply
