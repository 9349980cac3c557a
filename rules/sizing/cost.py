"""The network cost: the bill of materials summed, by fabric and by category, with its
power and rack space.

Each BOM line carries a low and a high unit price from the dated price book (street to
list), so the cost is two sums, not a scaled guess; ratios between fabrics ("InfiniBand
costs 2.6x RoCEv2") are computed from two such sums (`cost_ratio`).

    cost = network_cost(lines, gpus=128, budget_usd=5e6, price_book_date="2024-08", assumptions=[...])
"""

from __future__ import annotations

from collections.abc import Iterable

from rules.models import BomLine, Cost, CostPart

FABRIC_ORDER = ("compute", "storage", "in_band", "out_of_band")
CATEGORY_ORDER = ("switch", "nic", "transceiver", "cable", "fibre", "software", "spare")


def _thousands(usd: float) -> int:
    return round(usd / 1000) * 1000


def _part(name: str, lines: list[BomLine]) -> CostPart:
    return CostPart(
        name=name,
        usd_low=_thousands(sum(line.usd_low for line in lines)),
        usd_high=_thousands(sum(line.usd_high for line in lines)),
        watts=round(sum(line.quantity * (line.watts or 0) for line in lines if not line.included)),
        rack_units=round(sum(line.quantity * (line.rack_units or 0) for line in lines if line.category == "switch")),
    )


def _parts(lines: Iterable[BomLine], attribute: str, order: tuple[str, ...]) -> list[CostPart]:
    groups: dict[str, list[BomLine]] = {}
    for line in lines:
        groups.setdefault(getattr(line, attribute), []).append(line)
    return [_part(name, groups[name]) for name in order if name in groups]


def network_cost(
    lines: list[BomLine],
    gpus: int,
    budget_usd: float | None = None,
    price_book_date: str | None = None,
    assumptions: list[str] | None = None,
    basis: str | None = None,
) -> Cost:
    """The cost of a bill of materials: its sums (to the nearest $1,000), per fabric and
    category, per GPU, and as a share of the budget when one is given."""
    if gpus < 1:
        raise ValueError(f"gpus: must be at least 1, got {gpus}")
    if budget_usd is not None and budget_usd <= 0:
        raise ValueError(f"budget_usd: must be > 0, got {budget_usd}")
    whole = _part("network", lines)
    low, high = whole.usd_low, whole.usd_high
    dated = f" of {price_book_date}" if price_book_date else ""
    return Cost(
        network_usd_low=low,
        network_usd_high=high,
        basis=basis
        or (
            f"Sum of the bill of materials ({len(lines)} lines) at the price book{dated}: low at street, "
            "high at list prices; NICs that ship with the servers at $0."
        ),
        budget_share_low=round(low / budget_usd, 4) if budget_usd else None,
        budget_share_high=round(high / budget_usd, 4) if budget_usd else None,
        per_gpu_usd_low=round(low / gpus),
        per_gpu_usd_high=round(high / gpus),
        by_fabric=_parts(lines, "fabric", FABRIC_ORDER),
        by_category=_parts(lines, "category", CATEGORY_ORDER),
        watts=whole.watts,
        rack_units=whole.rack_units,
        price_book_date=price_book_date,
        assumptions=list(assumptions or []),
    )


def midpoint(low: float, high: float) -> float:
    return (low + high) / 2


def cost_ratio(numerator: tuple[float, float], denominator: tuple[float, float]) -> float:
    """How many times one cost range is another, at the ranges' midpoints (0 when the
    denominator is nothing)."""
    below = midpoint(*denominator)
    return round(midpoint(*numerator) / below, 2) if below > 0 else 0.0
