"""The array form of the similarity of meaning (knowledge/meaning.py) gives the search
exactly the figures the dict form (knowledge/vectors.py, knowledge/semantic.py) gives:
the same float for every entry, so no answer moves because the arithmetic got faster."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import knowledge
from core.settings import settings
from knowledge import meaning, semantic, store, vectors
from knowledge.search import EMBEDDING_SHARE, MEANING_CANDIDATES, _entry_texts
from minilm import embedding

DATA = Path(__file__).parent / "data"
QUESTIONS = [
    json.loads(line)["question"]
    for name in ("blind7_knowledge.jsonl", "blind8_knowledge.jsonl")
    for line in (DATA / name).read_text(encoding="utf-8").splitlines()
    if line.strip()
]
ODD = ["", "the of and", "zettabyte", "ToS byte", "NVLink NVLink NVLink", "日本語のGPU"]


@pytest.fixture(scope="module")
def entries(tmp_path_factory: pytest.TempPathFactory) -> list[vectors.EntryText]:
    path = tmp_path_factory.mktemp("kb") / "knowledge.db"
    knowledge.build(path)
    return _entry_texts(store.connection(path))


@pytest.fixture(scope="module")
def index(entries: list[vectors.EntryText]) -> vectors.Index:
    return vectors.Index(entries)


def test_tfidf_scores_as_arrays_equal_the_dict_to_the_last_bit(index: vectors.Index) -> None:
    arrays = meaning.postings(index)
    for question in [*QUESTIONS, *ODD]:
        expected = index.similarities(question)
        scores = arrays.scores(question)
        if not expected:
            assert scores is None, question
            continue
        assert scores is not None, question
        assert dict(zip(index.ids, scores.tolist(), strict=True)) == expected, question


def test_the_blend_with_the_embeddings_equals_the_dict_blend_and_ranks_as_it_did(
    entries: list[vectors.EntryText], index: vectors.Index
) -> None:
    model = embedding.shared(settings.embedding_model_dir)
    embedded_index = semantic.SemanticIndex(model, entries, settings.embedding_cache_dir)
    share = EMBEDDING_SHARE
    for question in [*QUESTIONS[::8], *ODD]:
        tfidf = index.similarities(question)
        expected = {
            entry_id: (1 - share) * tfidf.get(entry_id, 0.0) + share * score
            for entry_id, score in embedded_index.similarities(question).items()
        }
        blended = meaning.blend(index, embedded_index, question, share)
        assert {entry_id: blended.get(entry_id) for entry_id in blended.ids} == expected, question
        ranked = sorted(expected, key=expected.__getitem__, reverse=True)[:MEANING_CANDIDATES]
        assert blended.best(MEANING_CANDIDATES) == ranked, question
        assert blended.get("no-such-entry") == 0.0


def test_without_the_embeddings_the_blend_is_the_tfidf_similarity(index: vectors.Index) -> None:
    for question in ["what is PFC", "the of and"]:
        blended = meaning.blend(index, None, question, EMBEDDING_SHARE)
        expected = index.similarities(question)
        assert {entry_id: blended.get(entry_id) for entry_id in blended.ids} == expected
        assert np.all(blended.scores >= 0)
