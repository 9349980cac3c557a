"""The dated price book: what each network part costs, with its date and public source.

    >>> from knowledge.pricebook import price_book
    >>> book = price_book()
    >>> book.price("switch/QM9700").usd
    (36000.0, 50000.0)
    >>> book.assumptions.servers_per_rack
    4

Read from `knowledge/sources/pricebook.yaml` (kinds `price_book` and `bom_assumptions`),
once per process, and validated as it loads: a price without a date or a source, a range
with low above high, an unknown category or a key given twice stops the start with the
entry's id. The bill of materials (rules/sizing/bom.py) looks parts up by `key`.
"""

from __future__ import annotations

import functools
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from knowledge import sources

Category = Literal["switch", "nic", "transceiver", "cable", "fibre", "software", "server"]


class PriceBookError(ValueError):
    """The price book is malformed; the message names the entry."""


class NotInPriceBook(LookupError):
    """No price for a part key; the message lists the keys of that kind."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "not in the price book"


class Price(BaseModel):
    """One part's price range, dated and sourced."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    id: str
    key: str = Field(pattern=r"^[a-z]+(?:-[a-z]+)*/[A-Za-z0-9 .-]+(?:/[0-9]+)?$")
    category: Category
    part_number: str = Field(min_length=1)
    description: str = Field(min_length=1)
    usd: tuple[float, float]
    date: str = Field(pattern=r"^20[0-9]{2}-(0[1-9]|1[0-2])$")
    watts: float | None = Field(default=None, ge=0)
    rack_units: float | None = Field(default=None, ge=0)
    source: str = Field(min_length=1)
    note: str = ""

    @model_validator(mode="after")
    def _range(self) -> Price:
        low, high = self.usd
        if not 0 <= low <= high:
            raise ValueError(f"usd: need 0 <= low <= high, got [{low:g}, {high:g}]")
        return self

    @property
    def estimate(self) -> bool:
        """True when no published price for the part itself stands behind the range."""
        return self.source.startswith("Fabric Advisor estimate")


class BomAssumptions(BaseModel):
    """Where parts sit and how many spares, which decide copper versus optics."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    servers_per_rack: int = Field(ge=1)
    network_rack_units: int = Field(ge=1)
    text: str
    source: str


class PriceBook(BaseModel):
    """Every price by key, the assumptions, and the book's date (its newest price)."""

    model_config = ConfigDict(frozen=True)

    prices: dict[str, Price]
    assumptions: BomAssumptions
    servers: dict[str, Price] = {}  # kind `server_prices`: never bill-of-materials lines, not in `date`

    @property
    def date(self) -> str:
        return max(p.date for p in self.prices.values())

    def price(self, key: str) -> Price:
        try:
            return self.prices[key]
        except KeyError:
            kind = key.split("/", 1)[0]
            known = sorted(k for k in self.prices if k.startswith(kind + "/"))
            raise NotInPriceBook(f"no price for {key!r}; {kind} keys: {', '.join(known) or 'none'}") from None

    def has(self, key: str) -> bool:
        return key in self.prices

    def server(self, model: str) -> Price | None:
        """What one server (or rack-scale system) of the catalogue's `model` costs, if priced."""
        return self.servers.get(f"server/{model}")


def build_price_book(records: list[sources.Record]) -> PriceBook:
    """A validated PriceBook from source records (tests pass edited copies)."""
    prices: dict[str, Price] = {}
    for record in records:
        if record.kind != "price_book":
            continue
        try:
            price = Price.model_validate(record.data)
        except ValidationError as exc:
            raise PriceBookError(f"{record.id}: {exc}") from exc
        if price.key in prices:
            raise PriceBookError(f"{record.id}: key {price.key!r} already priced by {prices[price.key].id}")
        prices[price.key] = price
    servers: dict[str, Price] = {}
    for record in records:
        if record.kind == "server_prices":
            try:
                server = Price.model_validate(record.data)
            except ValidationError as exc:
                raise PriceBookError(f"{record.id}: {exc}") from exc
            if server.key in servers:
                raise PriceBookError(f"{record.id}: key {server.key!r} already priced by {servers[server.key].id}")
            servers[server.key] = server
    assumptions = [r.data for r in records if r.kind == "bom_assumptions"]
    if not prices or len(assumptions) != 1:
        raise PriceBookError("the price book needs price_book entries and exactly one bom_assumptions entry")
    try:
        return PriceBook(prices=prices, assumptions=BomAssumptions.model_validate(assumptions[0]), servers=servers)
    except ValidationError as exc:
        raise PriceBookError(f"{assumptions[0]['id']}: {exc}") from exc


@functools.cache
def price_book() -> PriceBook:
    """The price book of `knowledge/sources/pricebook.yaml`, read once per process."""
    return build_price_book(sources.of_kinds("price_book", "server_prices", "bom_assumptions"))
