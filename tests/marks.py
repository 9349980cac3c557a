"""Marks shared by test modules."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pytest


def slow_unless_quick(values: Iterable[Any], quick: Iterable[Any]) -> list[Any]:
    """Parameters for a test run over many values: those in `quick` run in `make check`,
    the rest are marked slow (run by `make test`), so the everyday loop still covers the
    case without paying for every value."""
    quick = set(quick)
    return [value if value in quick else pytest.param(value, marks=pytest.mark.slow) for value in values]
