"""Debian's chromium for the browser tests, driven by Playwright (no browser download):
the launch flags this machine needs, and one browser per test module."""

from __future__ import annotations

import shutil
from collections.abc import Iterator

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


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    chromium = shutil.which("chromium")
    if chromium is None:
        pytest.fail("Debian's chromium is not installed: `make browser` (apt-get install chromium)")
    with playwright_api.sync_playwright() as p:
        launched = p.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
        yield launched
        launched.close()
