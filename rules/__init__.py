"""The rules layer (rules/models.py is the contract every part speaks)."""

from rules import parse_tables

parse_tables.install()  # rule-engine's parser tables from var/cache, before anything imports it
