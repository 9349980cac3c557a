"""A design as a quote: the versions of the data it was made from, the day it was issued
and how long it holds, who it is for, and the customer's own prices and discount.

    >>> from rules.models import WorkloadProfile
    >>> request = RecommendationRequest(workload="training", gpu_count=128, prepared_for="Acme", discount_pct=10)
    >>> request.profile().gpu_count, request.terms().prepared_for
    (128, 'Acme')

The engine's Recommendation is a pure function of the profile; everything here is laid
on top of it by `quoted` before the design is stored, so the same profile under other
terms is another stored design (its id is a hash of the content) and the renderers read
the terms from the design alone. The issue date and the validity are left out of the id
(advisor.storage.store), so the same request on another day is the same quote.

Versions are content hashes of the data files (the rulebook, the hardware catalogue,
the price book), computed once per process: a design says which data it used, and a
"this looks wrong" report is filed against them.
"""

from __future__ import annotations

import hashlib
from datetime import date, timedelta
from functools import cache
from pathlib import Path
from typing import Annotated, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator

from core.settings import REPO, settings
from knowledge.pricebook import price_book
from rules import engine
from rules.models import (
    AlternativeSwitches,
    CostPart,
    DesignVersions,
    Quote,
    Racks,
    Recommendation,
    SupportLine,
    WorkloadProfile,
)

#: The largest unit price taken (USD): no network part costs more; beyond, a typo.
MAX_UNIT_USD = 10_000_000

CUSTOMER_PRICE_SOURCE = "As quoted by the customer's price list"

RULEBOOK_FILES = ("rules/rulebook/*.yaml", "rules/facts.yaml", "rules/options.yaml")
CATALOGUE_FILES = tuple(
    f"knowledge/sources/{name}.yaml"
    for name in ("hardware", "gpus", "links", "ports", "cost", "roce", "fabric_settings", "figures")
)
PRICE_BOOK_FILES = ("knowledge/sources/pricebook.yaml",)

SUPPORT_FILE = Path(__file__).with_name("support.yaml")

Family = Literal["infiniband", "roce", "ethernet"]


class _SupportEntry(SupportLine):
    fabrics: list[Family] = Field(min_length=1)


@cache
def support_entries(path: Path = SUPPORT_FILE) -> tuple[_SupportEntry, ...]:
    """advisor/designs/support.yaml, validated: a typo stops the start with the entry named."""
    data = yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    entries = []
    for number, raw in enumerate(data["support"], 1):
        try:
            entries.append(_SupportEntry.model_validate(raw))
        except ValueError as exc:
            raise ValueError(f"{path.name}, support entry {number}: {exc}") from exc
    return tuple(entries)


def support_lines(rec: Recommendation) -> list[SupportLine]:
    """The support and licence lines of the design's fabric family (none for NVLink only)."""
    technology = str(rec.fabric.technology)
    family = "infiniband" if technology.startswith("infiniband") else technology.removesuffix("v2")
    return [
        SupportLine.model_validate(entry.model_dump(exclude={"fabrics"}))
        for entry in support_entries()
        if family in entry.fabrics
    ]


PreparedFor = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]


class QuoteTerms(BaseModel):
    """What the customer adds to a design: their name, their prices, their discount."""

    model_config = ConfigDict(extra="forbid")

    prepared_for: PreparedFor | None = Field(
        default=None, description="Who the quote is for, printed on the report.", examples=["Acme AI Lab"]
    )
    prices: dict[str, float] = Field(
        default_factory=dict,
        description="The customer's price list: part number -> unit price in USD. Replaces the price book's "
        "range for those parts; a part number the price book does not know is refused (422).",
        examples=[{"MQM9700-NS2F": 41000}],
    )
    discount_pct: float = Field(
        default=0, ge=0, lt=100, description="Discount on the whole network, in %.", examples=[12.5]
    )

    @field_validator("prices")
    @classmethod
    def _known_parts(cls, prices: dict[str, float]) -> dict[str, float]:
        return checked_prices(prices)


class RecommendationRequest(WorkloadProfile):
    """The body of POST /v1/recommendations: the workload profile, and optionally the
    quote's terms (who it is for, the customer's prices, a discount)."""

    prepared_for: PreparedFor | None = QuoteTerms.model_fields["prepared_for"]  # type: ignore[assignment]
    prices: dict[str, float] = QuoteTerms.model_fields["prices"]  # type: ignore[assignment]
    discount_pct: float = QuoteTerms.model_fields["discount_pct"]  # type: ignore[assignment]

    @field_validator("prices")
    @classmethod
    def _known_parts(cls, prices: dict[str, float]) -> dict[str, float]:
        return checked_prices(prices)

    def profile(self) -> WorkloadProfile:
        return WorkloadProfile.model_validate(self.model_dump(exclude=set(QuoteTerms.model_fields)))

    def terms(self) -> QuoteTerms:
        return QuoteTerms.model_validate(self.model_dump(include=set(QuoteTerms.model_fields)))


def checked_prices(prices: dict[str, float]) -> dict[str, float]:
    """prices, when the price book knows every part number and no price is negative."""
    unknown = sorted(set(prices) - known_part_numbers())
    if unknown:
        raise ValueError(f"unknown part number(s) {', '.join(unknown)}; use the part numbers of the bill of materials")
    wrong = sorted(part for part, usd in prices.items() if not 0 <= usd <= MAX_UNIT_USD)  # NaN and inf too
    if wrong:
        raise ValueError(
            f"a unit price must be 0 or more and at most {MAX_UNIT_USD:,.0f} (USD); check {', '.join(wrong)}"
        )
    return prices


@cache
def known_part_numbers() -> frozenset[str]:
    return frozenset(price.part_number for price in price_book().prices.values())


def _digest(patterns: tuple[str, ...]) -> str:
    digest = hashlib.sha256()
    for pattern in patterns:
        for path in sorted(Path(REPO).glob(pattern)):
            digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:8]


@cache
def versions() -> DesignVersions:
    """The versions of the data this process designs with."""
    return DesignVersions(
        rulebook=f"rb-{_digest(RULEBOOK_FILES)}",
        catalogue=f"hw-{_digest(CATALOGUE_FILES)}",
        price_book=f"{price_book().date} (pb-{_digest(PRICE_BOOK_FILES)})",
    )


def quoted(rec: Recommendation, terms: QuoteTerms | None = None, today: date | None = None) -> Recommendation:
    """rec with its versions and quote: the customer's prices applied, the discount
    worked out, issued today and valid for `settings.quote_valid_days`."""
    terms = terms or QuoteTerms()
    today = today or date.today()
    if terms.prices:
        rec = _customer_priced(rec, terms.prices, today)
    low, high = rec.cost.network_usd_low, rec.cost.network_usd_high
    off_low, off_high = round(low * terms.discount_pct / 100), round(high * terms.discount_pct / 100)
    quote = Quote(
        prepared_for=terms.prepared_for,
        issued=today.isoformat(),
        valid_until=(today + timedelta(days=settings.quote_valid_days)).isoformat(),
        customer_priced=sorted(
            {line.part_number for line in rec.bill_of_materials if line.part_number in terms.prices}
        ),
        discount_pct=terms.discount_pct,
        discount_usd_low=off_low,
        discount_usd_high=off_high,
        net_usd_low=low - off_low,
        net_usd_high=high - off_high,
        support=support_lines(rec),
        alternative_switches=alternative_switches(rec),
    )
    return rec.model_copy(update={"versions": versions(), "quote": quote, "racks": racks(rec)})


def alternative_switches(rec: Recommendation) -> list[AlternativeSwitches]:
    """Each alternative's compute switches: the same profile designed with that fabric
    preferred (an alternative the rules would not build as preferred is left out)."""
    found = []
    for alt in rec.alternatives:
        try:
            zones = {"oversubscription": alt.oversubscription, "zone_gpus": alt.zone_gpus} if alt.zone_gpus else {}
            profile = WorkloadProfile.model_validate(
                {**rec.profile.model_dump(), "prefer": str(alt.technology), **zones}
            )
        except ValueError:
            continue
        other = engine.recommend(profile)
        if other.fabric.technology != alt.technology:
            continue
        t = other.topology
        found.append(
            AlternativeSwitches(
                technology=alt.technology,
                switch_model=other.fabric.switch_model,
                leaf_switches=t.leaf_switches,
                spine_switches=t.spine_switches,
                core_switches=t.core_switches,
            )
        )
    return found


#: A server with this many GPUs is a rack-scale system (GB200 NVL72): one per rack.
RACK_SCALE_GPUS = 36


def racks(rec: Recommendation) -> Racks:
    """Racks of servers at the price book's servers per rack (a rack-scale system fills
    its own), and network racks at its usable units per network rack."""
    book = price_book().assumptions
    profile = rec.profile
    per_node = profile.gpus_per_node or 1
    servers = profile.node_count or -(-(profile.gpu_count or 0) // per_node)
    per_rack = 1 if per_node >= RACK_SCALE_GPUS else book.servers_per_rack
    units = rec.cost.rack_units
    basis = (
        f"{per_rack} {'rack-scale system' if per_rack == 1 else 'servers'} per rack and "
        f"{book.network_rack_units} usable units per network rack; power of the network's parts only, "
        f"not of the servers. Source: {book.source}"
    )
    return Racks(
        servers=servers,
        servers_per_rack=per_rack,
        server_racks=-(-servers // per_rack),
        switch_rack_units=units,
        network_racks=-(-units // book.network_rack_units) if units else 0,
        network_watts=rec.cost.watts,
        basis=basis,
    )


def _customer_priced(rec: Recommendation, prices: dict[str, float], today: date) -> Recommendation:
    """The BOM's lines whose part the customer priced at that price (low = high), and
    the cost's totals moved by the same amounts."""
    lines, by_fabric, by_category = [], _moves(rec.cost.by_fabric), _moves(rec.cost.by_category)
    moved_low = moved_high = 0.0
    for line in rec.bill_of_materials:
        if line.part_number not in prices or line.included:
            lines.append(line)
            continue
        unit = prices[line.part_number]
        total = unit * line.quantity
        d_low, d_high = total - line.usd_low, total - line.usd_high
        moved_low, moved_high = moved_low + d_low, moved_high + d_high
        for moves, name in ((by_fabric, line.fabric), (by_category, line.category)):
            if name in moves:
                moves[name][0] += d_low
                moves[name][1] += d_high
        lines.append(
            line.model_copy(
                update={
                    "unit_usd_low": unit,
                    "unit_usd_high": unit,
                    "price_date": today.strftime("%Y-%m"),
                    "source": CUSTOMER_PRICE_SOURCE,
                }
            )
        )
    cost = rec.cost
    low, high = round(cost.network_usd_low + moved_low), round(cost.network_usd_high + moved_high)
    named = sorted({line.part_number for line in lines if line.source == CUSTOMER_PRICE_SOURCE})
    new_cost = cost.model_copy(
        update={
            "network_usd_low": low,
            "network_usd_high": high,
            "per_gpu_usd_low": _scaled(cost.per_gpu_usd_low, low, cost.network_usd_low),
            "per_gpu_usd_high": _scaled(cost.per_gpu_usd_high, high, cost.network_usd_high),
            "budget_share_low": _share(cost.budget_share_low, low, cost.network_usd_low),
            "budget_share_high": _share(cost.budget_share_high, high, cost.network_usd_high),
            "by_fabric": _moved(cost.by_fabric, by_fabric),
            "by_category": _moved(cost.by_category, by_category),
            "assumptions": [
                *cost.assumptions,
                f"{', '.join(named)} priced {CUSTOMER_PRICE_SOURCE[0].lower()}{CUSTOMER_PRICE_SOURCE[1:]} "
                f"({today.isoformat()}); every other part from the price book.",
            ]
            if named
            else cost.assumptions,
        }
    )
    return rec.model_copy(update={"bill_of_materials": lines, "cost": new_cost})


def _moves(parts: list[CostPart]) -> dict[str, list[float]]:
    return {part.name: [0.0, 0.0] for part in parts}


def _moved(parts: list[CostPart], moves: dict[str, list[float]]) -> list[CostPart]:
    return [
        part.model_copy(
            update={
                "usd_low": round(part.usd_low + moves[part.name][0]),
                "usd_high": round(part.usd_high + moves[part.name][1]),
            }
        )
        for part in parts
    ]


def _scaled(value: int | None, new_total: int, old_total: int) -> int | None:
    return round(value * new_total / old_total) if value is not None and old_total else value


def _share(value: float | None, new_total: int, old_total: int) -> float | None:
    return value * new_total / old_total if value is not None and old_total else value
