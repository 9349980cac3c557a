"""The settings object, kept importable under its old name: it lives in `core.settings`,
below every layer, so that the knowledge layer can read it without importing the advisor."""

from core.settings import RASA_SIDE_VARIABLES, REPO, Settings, settings, variables

__all__ = ["RASA_SIDE_VARIABLES", "REPO", "Settings", "settings", "variables"]
