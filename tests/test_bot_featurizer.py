"""The Rasa featurizer that adds all-MiniLM-L6-v2 sentence vectors
(bot/components/sentence_embedding.py), run by Rasa's own Python as Rasa runs it: from
bot/ with launch.RASA_ENV (the repository on the path, one BLAS thread)."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from bot import launch
from ops.processes import RASA_BIN

pytestmark = [
    pytest.mark.rasa,
    pytest.mark.skipif(not (RASA_BIN / "python").exists(), reason="no Rasa environment (make rasa-venv)"),
]


def run_in_rasa(code: str) -> dict:
    """Run a probe with Rasa's Python as Rasa runs (bot/, RASA_ENV); its last line is JSON."""
    result = subprocess.run(
        [str(RASA_BIN / "python"), "-c", code],
        cwd=launch.BOT,
        env={**os.environ, **launch.RASA_ENV},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


PROBE = """
import json
import numpy as np
from rasa.shared.nlu.constants import TEXT
from rasa.shared.nlu.training_data.message import Message
from rasa.shared.nlu.training_data.training_data import TrainingData
from components.sentence_embedding import SentenceEmbeddingFeaturizer

config = {**SentenceEmbeddingFeaturizer.get_default_config(), "scale": 7.0}
featurizer = SentenceEmbeddingFeaturizer(config, "probe")
texts = ["goodbye", "hello", "farewell, speak tomorrow", ""]
messages = [Message(data={TEXT: t}) for t in texts]
featurizer.process(messages)
data = TrainingData([Message(data={TEXT: "see you later", "intent": "goodbye"})])
featurizer.process_training_data(data)
def sentence(m):
    seq, sen = m.get_dense_features(TEXT)
    return None if sen is None else np.asarray(sen.features)
vectors = [sentence(m) for m in messages]
out = {
    "shapes": [None if v is None else list(v.shape) for v in vectors],
    "sequence": [m.get_dense_features(TEXT)[0] is not None for m in messages],
    "norm": float(np.linalg.norm(vectors[0])),
    "farewell_to_goodbye": float(vectors[2][0] @ vectors[0][0]),
    "farewell_to_hello": float(vectors[2][0] @ vectors[1][0]),
    "training_shape": list(sentence(data.training_examples[0]).shape),
}
print(json.dumps(out))
"""


def test_the_featurizer_adds_a_scaled_sentence_vector_that_places_words_by_meaning():
    out = run_in_rasa(PROBE)
    assert out["shapes"][:3] == [[1, 384]] * 3 and out["shapes"][3] is None  # an empty text gets none
    assert out["sequence"] == [False] * 4  # sentence features only: the classifier reads nothing else
    assert out["norm"] == pytest.approx(7.0, rel=1e-4)
    assert out["farewell_to_goodbye"] > out["farewell_to_hello"]
    assert out["training_shape"] == [1, 384]


GUARD_PROBE = """
import json
from rasa.engine.storage.local_model_storage import LocalModelStorage
from rasa.engine.storage.resource import Resource
from rasa.shared.nlu.constants import INTENT, TEXT
from rasa.shared.nlu.training_data.message import Message
from rasa.shared.nlu.training_data.training_data import TrainingData
from components.unknown_words import UnknownWordsGuard
import tempfile, pathlib

storage = LocalModelStorage(pathlib.Path(tempfile.mkdtemp()))
guard = UnknownWordsGuard(storage, Resource("guard"), set())
guard.train(TrainingData([Message(data={TEXT: "infiniband or roce for us?", INTENT: "compare"})]))
texts = ["qwzx blorp frumble", "infiniband roce", "ttyl", "fjdks 128 blorp", "what is pfc"]
messages = [Message(data={TEXT: t, INTENT: {"name": "goodbye", "confidence": 0.8}}) for t in texts]
guard.process(messages)
loaded = UnknownWordsGuard.load({}, storage, Resource("guard"), None)
print(json.dumps({"confidence": [m.get(INTENT)["confidence"] for m in messages],
                  "reloaded": loaded.unknown("infiniband roce")}))
"""


def test_a_message_of_unknown_words_only_loses_its_intents_confidence():
    """Gibberish goes to the fallback; words of the training data, digits and single
    unknown words ("ttyl") are left to the classifier."""
    out = run_in_rasa(GUARD_PROBE)
    assert out["confidence"] == [0.0, 0.8, 0.8, 0.8, 0.8]
    assert out["reloaded"] is False  # the training words survive persisting
