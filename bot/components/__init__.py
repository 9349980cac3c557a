"""Custom Rasa NLU components, loaded by Rasa (Python 3.10) from bot/config.yml."""
