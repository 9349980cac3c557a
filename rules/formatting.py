"""Money and shares as people write them, for rule statements and every renderer.

A module of its own, importing nothing, so renderers format amounts without loading
the rules' facts (and, through them, the hardware catalogue).

    >>> usd(1_250_000), usd(350_000), usd_range(200_000, 400_000), pct(0.042)
    ('$1.25M', '$350K', '$200K-$400K', '4.2 %')
"""

from __future__ import annotations


def usd(amount: float) -> str:
    """$1.2M / $350K / $900 style, as people write budgets."""
    if amount >= 1_000_000:
        return f"${amount / 1_000_000:.2f}".rstrip("0").rstrip(".") + "M"
    if amount >= 1_000:
        return f"${amount / 1_000:.0f}K"
    return f"${amount:.0f}"


def usd_range(low: float, high: float) -> str:
    """ "$200K-$400K": a cost range in rule statements."""
    return f"{usd(low)}-{usd(high)}"


def pct(share: float) -> str:
    return f"{share * 100:.1f} %" if share < 0.1 else f"{share * 100:.0f} %"
