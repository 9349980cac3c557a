"""`fabric-advisor`, the command line for sales engineers (`cli.main`): an entry point
beside the API (api/) and the chat bot (bot/), calling the same service."""
