"""A Rasa component that sends a message made only of unknown words to the fallback.

Why: with sentence embeddings among its features, the intent classifier is confident
about anything, gibberish included ("qwzx blorp frumble" came out as goodbye at 0.51),
so the FallbackClassifier's confidence threshold no longer catches it. A message with at
least two words, none of which is an English word (a whole word of all-MiniLM-L6-v2's
vocabulary) or a word of the training examples ("infiniband", "roce"), gets confidence 0
here, and the FallbackClassifier after it answers "didn't understand". Words with digits
("h100s", "nvl72") are never unknown; one unknown word alone ("ttyl") is left to the
classifier.

In bot/config.yml as `components.unknown_words.UnknownWordsGuard`, after the intent
classifier and before the FallbackClassifier.
"""

from __future__ import annotations

import json
from typing import Any

from rasa.engine.graph import ExecutionContext, GraphComponent
from rasa.engine.recipes.default_recipe import DefaultV1Recipe
from rasa.engine.storage.resource import Resource
from rasa.engine.storage.storage import ModelStorage
from rasa.nlu.classifiers.classifier import IntentClassifier
from rasa.shared.nlu.constants import INTENT, TEXT
from rasa.shared.nlu.training_data.message import Message
from rasa.shared.nlu.training_data.training_data import TrainingData

from minilm import embedding

from . import sentence_model

WORDS_FILE = "words.json"
#: fewer words than this are left to the classifier ("ttyl", "thx")
MIN_WORDS = 2


def words_of(text: str) -> list[str]:
    """The alphabetic words of a text, lower-cased as the embedding's tokenizer does."""
    return [word for word in embedding.basic_tokens(text) if word.isalpha()]


@DefaultV1Recipe.register(DefaultV1Recipe.ComponentType.INTENT_CLASSIFIER, is_trainable=True)
class UnknownWordsGuard(GraphComponent, IntentClassifier):
    """Zero confidence for a message of unknown words only."""

    def __init__(self, model_storage: ModelStorage, resource: Resource, trained_words: set[str]) -> None:
        self._model_storage = model_storage
        self._resource = resource
        self.trained_words = trained_words
        self.english = sentence_model().tokenizer.ids

    @classmethod
    def create(
        cls,
        config: dict[str, Any],
        model_storage: ModelStorage,
        resource: Resource,
        execution_context: ExecutionContext,
    ) -> UnknownWordsGuard:
        return cls(model_storage, resource, set())

    def train(self, training_data: TrainingData) -> Resource:
        self.trained_words = {w for m in training_data.intent_examples for w in words_of(m.get(TEXT) or "")}
        with self._model_storage.write_to(self._resource) as directory:
            (directory / WORDS_FILE).write_text(json.dumps(sorted(self.trained_words)), encoding="utf-8")
        return self._resource

    @classmethod
    def load(
        cls,
        config: dict[str, Any],
        model_storage: ModelStorage,
        resource: Resource,
        execution_context: ExecutionContext,
        **kwargs: Any,
    ) -> UnknownWordsGuard:
        try:
            with model_storage.read_from(resource) as directory:
                words = set(json.loads((directory / WORDS_FILE).read_text(encoding="utf-8")))
        except ValueError:  # not trained (no training data)
            words = set()
        return cls(model_storage, resource, words)

    def unknown(self, text: str) -> bool:
        """Only unknown words, and at least MIN_WORDS of them."""
        words = words_of(text)
        if len(words) < MIN_WORDS or any(char.isdigit() for char in text if not char.isspace()):
            return False
        return not any(word in self.english or word in self.trained_words for word in words)

    def process(self, messages: list[Message]) -> list[Message]:
        for message in messages:
            intent = message.get(INTENT)
            if intent and self.unknown(message.get(TEXT) or ""):
                message.set(INTENT, {**intent, "confidence": 0.0}, add_to_output=True)
        return messages
