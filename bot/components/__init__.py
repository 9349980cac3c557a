"""Custom Rasa NLU components, loaded by Rasa (Python 3.10) from bot/config.yml."""

from __future__ import annotations

import os
from pathlib import Path

from minilm import embedding


def sentence_model(configured: str | None = None) -> embedding.MiniLM:
    """The process's one all-MiniLM-L6-v2 (the featurizer and the guard share it): from
    the component's `model_dir`, else $FABRIC_ADVISOR_EMBEDDING_MODEL, else var/models.
    Read here rather than through core.settings, which needs pydantic 2."""
    directory = configured or os.environ.get(embedding.MODEL_DIR_VARIABLE) or embedding.DEFAULT_MODEL_DIR
    return embedding.shared(Path(directory))
