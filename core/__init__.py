"""The bottom of the stack beside the contract: what every layer may read and that
imports nothing of the project (the process's settings, `core.settings`)."""
