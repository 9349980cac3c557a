"""Debian's chromium for the browser tests, driven by Playwright (no browser download):
the launch flags this machine needs (the `browser` fixture is in conftest.py)."""

from __future__ import annotations

import pytest

playwright_api = pytest.importorskip("playwright.sync_api")

# without the background-networking flags chromium keeps dialling out on a closed network
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
