"""Rasa input channels of our own, loaded by Rasa from bot/credentials.yml.

They run inside the Rasa environment (Python 3.10, Rasa 3.6), so they import only what
that environment has (rasa, sanic, slack_sdk) and nothing of the advisor. Rasa runs in
bot/ and puts its working directory on the import path, so credentials.yml names them
`channels.<module>.<Class>`.

Importing the package also installs our Rasa-side fixes (action_validation: one
validator for action replies; conversation_store: a tracker store that cannot be
reached is an error, not a new conversation): Rasa loads it from credentials.yml
before the first conversation.
"""

from . import action_validation, conversation_store

action_validation.install()
conversation_store.install()
