"""The numpy MiniLM (minilm/embedding.py) tokenizes and embeds as sentence-transformers
on PyTorch does: reference token ids and vectors in tests/data/minilm_reference.json were
made with it. The comparison needs the model files, which `make test` installs (`make
embedding-model`); the tokenizer and safetensors reader are also checked on small
hand-made inputs."""

from __future__ import annotations

import json
import struct
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from core import progress
from core.settings import settings
from knowledge.semantic import SemanticIndex
from knowledge.vectors import EntryText
from minilm import embedding

REFERENCE = json.loads((Path(__file__).parent / "data" / "minilm_reference.json").read_text(encoding="utf-8"))
MODEL_DIR = settings.embedding_model_dir


def test_basic_tokens_lower_case_strip_accents_and_split_punctuation() -> None:
    assert embedding.basic_tokens("Café's RoCEv2,\tGPU数\x00!") == ["cafe", "'", "s", "rocev2", ",", "gpu", "数", "!"]


def test_wordpiece_takes_the_longest_pieces_and_marks_unknown_words() -> None:
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "infini", "##band", "in", "##fini", "switch", "##es"]
    tokenizer = embedding.WordPiece(vocab)
    assert tokenizer.encode("InfiniBand switches xyz") == [2, 4, 5, 8, 9, 1, 3]
    assert len(tokenizer.encode("switch " * 300, max_tokens=16)) == 16


def test_safetensors_reader_returns_each_tensor_with_its_shape(tmp_path: Path) -> None:
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.array([7, 8], dtype=np.int64)
    header = {
        "__metadata__": {"format": "pt"},
        "a": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]},
        "b": {"dtype": "I64", "shape": [2], "data_offsets": [24, 40]},
    }
    raw = json.dumps(header).encode()
    path = tmp_path / "t.safetensors"
    path.write_bytes(struct.pack("<Q", len(raw)) + raw + a.tobytes() + b.tobytes())
    tensors = embedding.read_safetensors(path)
    assert np.array_equal(tensors["a"], a) and np.array_equal(tensors["b"], b)


def test_token_ids_match_the_reference_tokenizer() -> None:
    tokenizer = embedding.WordPiece((MODEL_DIR / embedding.VOCAB).read_text(encoding="utf-8").splitlines())
    for item in REFERENCE["sentences"]:
        assert tokenizer.encode(item["text"]) == item["token_ids"], item["text"]


def test_vectors_match_sentence_transformers_on_torch() -> None:
    model = embedding.MiniLM(MODEL_DIR)
    texts = [item["text"] for item in REFERENCE["sentences"]]
    reference = np.array([item["vector"] for item in REFERENCE["sentences"]], dtype=np.float32)
    batched = model.encode(texts)
    one_by_one = np.stack([model.encode([text])[0] for text in texts])
    assert np.abs(batched - reference).max() < 1e-5
    assert np.abs(one_by_one - reference).max() < 1e-5
    assert np.allclose(np.linalg.norm(batched, axis=1), 1.0, atol=1e-5)


def test_semantic_index_ranks_by_meaning_and_reuses_its_cached_vectors(tmp_path: Path) -> None:
    model = embedding.MiniLM(MODEL_DIR)
    entries = [
        EntryText(
            "nvlink", ("NVLink", "how do GPUs in one server talk to each other"), "NVLink joins the GPUs of a server."
        ),
        EntryText("pfc", ("PFC", "why does RoCE need lossless Ethernet"), "Priority Flow Control pauses a class."),
        EntryText("price", ("switch prices",), "What a leaf switch costs."),
    ]
    first = SemanticIndex(model, entries, tmp_path)
    assert first.cache is not None and first.cache.parent == tmp_path
    scores = first.similarities("what stops packets being dropped on a converged network")
    assert max(scores, key=scores.__getitem__) == "pfc"

    calls: list[int] = []
    original = model.encode

    def counting(texts: list[str], batch_size: int = 8) -> np.ndarray:
        calls.append(len(texts))
        return original(texts, batch_size)

    model.encode = counting  # type: ignore[method-assign]
    second = SemanticIndex(model, entries, tmp_path)
    assert calls == [] and np.array_equal(second.phrasings, first.phrasings)


def test_building_an_index_reports_each_batch_to_the_installed_progress_sink(tmp_path: Path) -> None:
    model = embedding.MiniLM(MODEL_DIR)
    entries = [EntryText(f"e{i}", (f"question number {i}",), f"answer {i}") for i in range(11)]
    seen: list[tuple[int, int]] = []
    with progress.reporting(lambda done, total: seen.append((done, total))):
        SemanticIndex(model, entries, tmp_path)
    assert seen, "no progress reported while the vectors were computed"
    totals = {total for _, total in seen}
    assert len(totals) == 1
    (total,) = totals
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)
    assert seen[-1] == (total, total)
    seen.clear()
    SemanticIndex(model, entries, tmp_path)  # cached vectors, and no sink installed
    assert seen == []


def test_encoding_reads_a_long_message_only_as_far_as_its_first_256_pieces() -> None:
    """A hostile 2-million-character message costs what a short one does: the tokenizer
    stops after the pieces the model takes (it once split the whole text first)."""
    wordpiece = embedding.WordPiece(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "pfc", "ecn"])
    text = _CountedText("PFC, ECN! " * 200_000)
    ids = wordpiece.encode(text)
    assert text.read < 10_000, f"the tokenizer read {text.read:,} of {len(text):,} characters"
    assert len(ids) == embedding.MAX_TOKENS and ids[:5] == [2, 4, 1, 5, 1]
    assert embedding.basic_tokens("Ab\u00e9 c\u4e2d\u6587d, e\x00f") == ["abe", "c", "\u4e2d", "\u6587", "d", ",", "ef"]


class _CountedText(str):
    """A message that counts the characters the tokenizer reads from it."""

    read = 0

    def __iter__(self) -> Iterator[str]:
        for char in super().__iter__():
            self.read += 1
            yield char
