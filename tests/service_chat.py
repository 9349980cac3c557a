"""A conversation through advisor.service the way /v1/ask's clients hold one: each turn
sends back the profile, the recommendation shown and the context the last answer returned."""

from __future__ import annotations

from advisor import service
from advisor.models import AskResult


def chain(*turns: str) -> list[AskResult]:
    """Every turn's result, in order."""
    profile = rec = context = None
    results = []
    for text in turns:
        result = service.ask(text, profile, rec, context)
        profile, context = result.profile, result.context
        if result.recommendation is not None:
            rec = result.recommendation.id
        results.append(result)
    return results
