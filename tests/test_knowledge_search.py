"""Full-text search answers the common questions with the right entry first, and never
raises on odd input; entries and subjects can be read directly."""

from __future__ import annotations

import functools
import threading

import pytest

import knowledge
from knowledge import sources
from understanding.query import content_words, fts_query, terms, title_fit


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("kb") / "knowledge.db"
    knowledge.build(path)
    return path


def top_ids(db, text: str, n: int = 1) -> list[str]:
    return [e.id for e in knowledge.search(text, limit=n, db_path=db)]


@pytest.mark.parametrize(
    "question, expected",
    [
        ("what is PFC", {"glossary-pfc", "roce-pfc"}),
        ("what is priority flow control?", {"glossary-pfc", "roce-pfc"}),
        ("how much more does InfiniBand cost than Ethernet", {"faq-infiniband-vs-ethernet-cost"}),
        ("how many ports does each server need", {"faq-ports-per-server"}),
        ("what is rail optimized", {"glossary-rail-optimized", "topology-rail-optimized"}),
        ("explain DCQCN", {"glossary-dcqcn", "roce-dcqcn"}),
        ("what is SHARP", {"glossary-sharp"}),
        ("IB vs Ethernet latency", {"infiniband-vs-ethernet-comparison", "figure-infiniband-latency"}),
        ("do I need InfiniBand for 32 GPUs?", {"faq-do-i-need-infiniband"}),
        ("what is ECN", {"glossary-ecn", "roce-ecn"}),
        ("Dragonfly+", {"glossary-dragonfly-plus", "topology-dragonfly-plus"}),
        ("Quantum-2", {"switch-qm9700"}),
        ("DGX H100 ports", {"ports-dgx-h100", "server-dgx-h100"}),
        ("IEEE 802.1Qbb", {"glossary-pfc", "roce-pfc", "practice-pfc-mechanics"}),
        # "difference" frames the question; the cost FAQ's title has it but is not the answer
        (
            "What's the difference between NDR and XDR?",
            {
                "infiniband-xdr-generation",
                "infiniband-ndr-generation",
                "glossary-xdr",
                "glossary-ndr",
                "practice-infiniband-generations",  # every generation side by side
            },
        ),
    ],
)
def test_common_questions_rank_the_right_entry_first(db, question, expected):
    assert top_ids(db, question)[0] in expected


@pytest.mark.parametrize(
    "question, expected",
    [
        # a definition leads a question that asks what something is ...
        ("what is XDR?", {"glossary-xdr", "infiniband-xdr-generation"}),
        # ... not one that asks for a figure of a named part
        ("How many 800G ports does the Quantum-X800 Q3400 switch have?", {"switch-q3400"}),
        # a price leads only a question about cost
        ("cx8 supernic speed / pcie?", {"nic-connectx-8"}),
        ("how much does a connectx-8 cost", {"price-nic-connectx-8"}),
        # how the answer should be put is not what it is about
        ("What does DCQCN do, in a sentence or two?", {"glossary-dcqcn", "roce-dcqcn"}),
        ("What exactly is Spectrum-X?", {"glossary-spectrum-x"}),
        # the entry that states the figure asked for beats one that shares the words
        ("how many ndr ports on a qm9700", {"switch-qm9700"}),
        ("how many rails in a DGX H100 superpod?", {"practice-superpod-switch-counts", "topology-rail-optimized"}),
    ],
)
def test_what_the_question_asks_for_decides_which_kind_of_entry_leads(db, question, expected):
    assert top_ids(db, question)[0] in expected


def test_a_search_terms_file_with_a_broken_cue_fails_with_its_name(tmp_path, monkeypatch):
    from understanding import query

    broken = tmp_path / "search_terms.yaml"
    broken.write_text("stopwords: [a]\nsynonyms: {}\nintents:\n  price:\n    cues: ['(unclosed']\n")
    monkeypatch.setattr(query, "TERMS_FILE", broken)
    query._terms.cache_clear()
    try:
        with pytest.raises(ValueError, match=r"search_terms.yaml.*not a regular expression"):
            query.intents("what is PFC")
    finally:
        monkeypatch.undo()
        query._terms.cache_clear()


def test_acronyms_no_entry_mentions_are_reported_and_known_ones_are_not(db):
    assert knowledge.uncovered_acronyms("What LACP mode should we set for RoCE?", db_path=db) == ["LACP"]
    assert knowledge.uncovered_acronyms("What MTU should we set for RoCE?", db_path=db) == []  # glossary-mtu
    assert knowledge.uncovered_acronyms("PFC, ECN and DCQCN on IB vs RoCE?", db_path=db) == []
    assert knowledge.uncovered_acronyms("no acronyms here", db_path=db) == []


def test_both_pfc_entries_lead_for_pfc(db):
    assert set(top_ids(db, "what is PFC", 2)) == {"glossary-pfc", "roce-pfc"}


def test_results_carry_source_and_descending_score(db):
    hits = knowledge.search("RoCE lossless configuration", limit=5, db_path=db)
    assert hits and all(h.source for h in hits)
    scores = [h.score for h in hits]
    assert scores == sorted(scores, reverse=True) and scores[0] > 0


def test_limit_is_respected(db):
    assert len(knowledge.search("InfiniBand", limit=3, db_path=db)) == 3
    assert knowledge.search("InfiniBand", limit=0, db_path=db) == []


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "what is",
        '"',
        '""',
        "*",
        "NEAR",
        "NEAR(a b)",
        "a AND OR NOT b",
        "pfc*",
        "title:pfc",
        "(((",
        "'; drop table entries; --",
        "ünïcödé ✓ µs",
        "x" * 5000,
        "🙂",
        "-",
        "^pfc",
        "\x00",
        "IB ∨ Ethernet?",
    ],
)
def test_odd_input_never_raises(db, text):
    hits = knowledge.search(text, db_path=db)
    assert isinstance(hits, list)


def test_stopword_only_questions_return_nothing(db):
    assert knowledge.search("what is it?", db_path=db) == []


@pytest.mark.parametrize("text", ["1.1.1.1.1.1", "2048 / 64", ("1." * 1000)])
def test_questions_without_a_letter_return_nothing(db, text):
    """Numbers alone name no entry, and the meaning model is not run over them."""
    assert knowledge.search(text, db_path=db) == []


def test_query_quotes_every_term():
    assert fts_query("What is priority flow control?") == (
        '"priority" OR "flow" OR "control" OR "priority flow" OR "flow control"'
    )
    assert fts_query('NEAR("x" * OR y)') == '"near" OR "x" OR "y" OR "near x" OR "x y"'
    assert "infiniband" in terms("IB latency")
    assert "all reduce" in terms("all-reduce time")


def test_entry_by_id(db):
    pfc = knowledge.entry("glossary-pfc", db_path=db)
    assert pfc and pfc.subject == "glossary" and "802.1Qbb" in pfc.source
    assert knowledge.entry("no-such-entry", db_path=db) is None


def test_subjects_for_the_api(db):
    """The API's subjects are the source files (their list is pinned in test_knowledge_sources)."""
    assert knowledge.subjects(db_path=db) == sorted({r.subject for r in sources.load()})


def test_subject_returns_full_entries_in_source_order(db):
    faq = knowledge.subject("faq", db_path=db)
    assert [e["id"] for e in faq] == [
        "faq-do-i-need-infiniband",
        "faq-infiniband-vs-ethernet-cost",
        "faq-ports-per-server",
    ]
    assert faq[1]["numbers"]["infiniband_hdr_fabric_usd"] == [200_000, 400_000]
    hardware = knowledge.subject("hardware", db_path=db)
    assert {e["kind"] for e in hardware} == {"hardware_switches", "hardware_nics", "hardware_servers"}
    assert next(e["id"] for e in knowledge.subject("generations", db_path=db)) == "infiniband-hdr-generation"


def test_unknown_subject_lists_valid_names(db):
    with pytest.raises(knowledge.UnknownSubject) as raised:
        knowledge.subject("nonsense", db_path=db)
    assert isinstance(raised.value, KeyError)
    assert "faq" in str(raised.value) and "hardware" in str(raised.value)


@pytest.mark.slow  # 160 searches from 8 threads
def test_reads_are_safe_across_threads(db):
    errors: list[BaseException] = []

    def worker():
        try:
            for _ in range(20):
                assert knowledge.search("what is PFC", db_path=db)[0].id in {"glossary-pfc", "roce-pfc"}
                assert knowledge.subject("faq", db_path=db)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def test_an_entry_without_the_kind_of_answer_asked_for_counts_less():
    from understanding.query import answer_fit, wanted_answers

    wanted = wanted_answers("how many ports does a QM9700 have?")
    assert answer_fit(wanted, "QM9700", "64 ports of 400 Gb/s in 32 OSFP cages") == 1.0
    assert answer_fit(wanted, "OSFP", "An optical module form factor for 400G and 800G") < 1.0
    assert wanted_answers("what is PFC?") == []


def test_search_without_the_embedding_model_ranks_by_words_alone(db, tmp_path, monkeypatch, caplog):
    """A machine without `make embedding-model` still answers (TF-IDF only) and says why once."""
    import sys

    search_module = sys.modules["knowledge.search"]
    from knowledge import semantic

    monkeypatch.setattr(
        search_module,
        "settings",
        search_module.settings.model_copy(update={"embedding_model_dir": tmp_path / "no-model"}),
    )
    monkeypatch.setattr(search_module, "_model_installed", functools.cache(search_module._model_installed.__wrapped__))
    monkeypatch.setattr(semantic, "_cache", {})
    with caplog.at_level("WARNING"):
        hits = knowledge.search("what is PFC", db_path=db)
    assert hits and hits[0].id in {"glossary-pfc", "roce-pfc"}
    assert "without sentence embeddings" in caplog.text and "make embedding-model" in caplog.text


def test_an_entry_titled_by_the_questions_words_counts_more_than_one_titled_otherwise():
    asked = content_words("what is adaptive routing on infiniband")
    named = title_fit(asked, "Adaptive routing (InfiniBand)")
    other = title_fit(asked, "Credit-based flow control")
    assert named > other == 1.0
    assert title_fit(frozenset(), "Adaptive routing") == 1.0


@pytest.mark.parametrize(
    "question, expected",
    [
        # a whole system's figure, not its GPU's (the GPU entry states 1,000 W per B200)
        ("how many kilowatts does one DGX B200 node need?", "practice-dgx-system-power"),
        # a comparison of fabric shapes, not a table of switch counts
        ("why stay on two tiers rather than adding a core tier?", "practice-two-vs-three-tier"),
        # a cloud's own transport, not RoCE's versions
        ("which transport does the Elastic Fabric Adapter run?", "practice-aws-efa-srd"),
    ],
)
def test_questions_of_the_kinds_that_missed_lead_with_the_entry_that_states_the_answer(db, question, expected):
    assert expected in top_ids(db, question, n=2)


def test_an_entry_that_names_what_the_question_names_leads_a_close_call():
    """ "What MTU ... for a RoCEv2 AI fabric?": an entry on non-NVIDIA RoCE switches scored a
    little higher than the MTU entry; the one naming the rarer thing asked (MTU) leads."""
    from advisor import service

    assert (
        service._top_hits("What MTU should we configure on the switches and hosts for a RoCEv2 AI fabric?")[0].id
        == "glossary-mtu"
    )
