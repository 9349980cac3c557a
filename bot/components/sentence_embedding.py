"""A Rasa featurizer that gives each message the sentence embedding of all-MiniLM-L6-v2.

Why: the intents Rasa must tell apart from a few words ("cheers, that's all", "who do
I email for a quote", "is this a script") share few word or letter n-grams with the
training examples, so count features alone leave macro F1 at 0.84 in cross-validation.
A sentence embedding puts "farewell" near "goodbye"; with it beside the counts the
logistic regression reaches the issue's 0.92 (docs/embeddings.md, `make nlu-report`).

The model runs in numpy (minilm/embedding.py, no PyTorch) and is loaded once per process.
Only sentence features are given: Rasa's LogisticRegressionClassifier reads the sentence
features alone. `scale` multiplies the unit-length vector so that it weighs about as much
as the count features, whose sentence vector sums dozens of n-gram counts; Rasa's
classifier has no regularisation setting to do it instead.

In bot/config.yml as `components.sentence_embedding.SentenceEmbeddingFeaturizer`; Rasa
runs from bot/ with the repository root on PYTHONPATH (bot/launch.py RASA_ENV, Makefile).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from rasa.engine.graph import ExecutionContext, GraphComponent
from rasa.engine.recipes.default_recipe import DefaultV1Recipe
from rasa.engine.storage.resource import Resource
from rasa.engine.storage.storage import ModelStorage
from rasa.nlu.featurizers.dense_featurizer.dense_featurizer import DenseFeaturizer
from rasa.shared.nlu.constants import TEXT
from rasa.shared.nlu.training_data.message import Message
from rasa.shared.nlu.training_data.training_data import TrainingData

from . import sentence_model


@DefaultV1Recipe.register(DefaultV1Recipe.ComponentType.MESSAGE_FEATURIZER, is_trainable=False)
class SentenceEmbeddingFeaturizer(DenseFeaturizer, GraphComponent):
    """all-MiniLM-L6-v2 sentence vectors as dense sentence features of the text."""

    @staticmethod
    def get_default_config() -> dict[str, Any]:
        return {**DenseFeaturizer.get_default_config(), "scale": 7.0, "model_dir": None}

    @classmethod
    def validate_config(cls, config: dict[str, Any]) -> None:
        if float(config.get("scale", 1.0)) <= 0:
            raise ValueError(f"SentenceEmbeddingFeaturizer: scale must be positive, got {config.get('scale')!r}")

    @staticmethod
    def required_packages() -> list[str]:
        return ["numpy"]

    def __init__(self, config: dict[str, Any], name: str) -> None:
        super().__init__(name, config)
        self.model = sentence_model(config.get("model_dir"))
        self.scale = np.float32(config["scale"])

    @classmethod
    def create(
        cls,
        config: dict[str, Any],
        model_storage: ModelStorage,
        resource: Resource,
        execution_context: ExecutionContext,
    ) -> SentenceEmbeddingFeaturizer:
        return cls(config, execution_context.node_name)

    def _featurize(self, messages: list[Message]) -> None:
        texts = [m for m in messages if m.get(TEXT)]
        if not texts:
            return
        vectors = self.model.encode([m.get(TEXT) for m in texts]) * self.scale
        for message, vector in zip(texts, vectors, strict=True):
            sentence: np.ndarray | None = vector[np.newaxis, :]
            self.add_features_to_message(None, sentence, TEXT, message)

    def process(self, messages: list[Message]) -> list[Message]:
        self._featurize(messages)
        return messages

    def process_training_data(self, training_data: TrainingData) -> TrainingData:
        self._featurize(training_data.training_examples)
        return training_data
