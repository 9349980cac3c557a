"""The floor a design is built on: racks, rows, where each device sits, how long a run is.

A cable's length decides its media (copper, multimode, single-mode), so a design that
is to be ordered needs a floor. The model is deliberately small and every number in it
is stated, so a customer can replace any of them with their own hall's:

- Servers per rack from the platform's reference architecture and rack power: four DGX
  H100 / B200 / B300 per rack (NVIDIA DGX SuperPOD H100 RA: 32 DGX in 8 racks per SU;
  DGX SuperPOD B300-XDR RA: ~56 kW per rack, four DGX B300), one NVL72 system per rack
  (its 18 compute trays). A rack power limit (`rack_kw`) lowers the count where the
  servers draw more (DGX H100 ~10.2 kW, DGX B200 ~14.3 kW; NCP-AII study guide figures).
- Compute racks of a scalable unit stand together in a row; each row starts with the
  network rack(s) of the leaves serving it; spine and core switches stand in a network
  row in the middle of the hall (the main distribution area of TIA-942, where runs from
  every row are shortest).
- Geometry (Fabric Advisor assumptions, not from a source): 600 mm wide racks, a row
  pitch of 3 m (1.2 m rack depth and 1.8 m of hot and cold aisle), cables leave a rack
  up to an overhead tray and come down into the other rack (2 m each way), run along
  the tray Manhattan-wise, plus 10 % slack and a 1 m service loop, rounded up to the
  next stock length. Two ports in one rack take a 2 m cord, no tray.

Each link's length is then a function of the two racks' coordinates, so lengths vary
within a tier (a leaf's near servers and far servers; a near row's and a far row's
spine runs).
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from rules.models import FloorSettings
from rules.platform import Platform

__all__ = ["Floor", "FloorSettings", "Rack", "resolve", "stock_length"]

# DGX SuperPOD reference architectures: four DGX per rack (H100 RA, 8 racks per 32-node
# SU; B300-XDR RA, ~56 kW per rack, four DGX B300); one NVL72 system is one rack.
RA_SERVERS_PER_RACK = 4
# Server power (kW), NCP-AII study guide (flashgenius.net): DGX H100 ~10.2, DGX B200 ~14.3;
# DGX B300: the B300-XDR RA's ~56 kW per rack of four.
SERVER_KW = {"H100": 10.2, "H200": 10.2, "B200": 14.3, "B300": 14.0}
DEFAULT_SERVER_KW = 10.2  # other 8-GPU servers: as a DGX H100
NVL72_RACK_KW = 132.0  # GB200 NVL72 (GB300 "up to 142 kW", NVIDIA GB200 SuperPOD RA)

IN_RACK_M = 2.0  # a cord between two ports of one rack, no tray
STOCK_LENGTHS_M = (1, 2, 3, 5, 7, 10, 15, 20, 25, 30, 40, 50, 60, 70, 80, 100)  # past 100 m: cut to whole tens


@dataclass(frozen=True, slots=True)
class Rack:
    """A rack position: row and column on the floor, in the model's grid."""

    row: int
    col: int


@dataclass(frozen=True)
class Floor:
    """The resolved floor: every number the lengths are computed from."""

    servers_per_rack: int
    rack_kw: float
    racks_per_row: int | None  # None: two scalable units and their leaf rack per row (see place())
    rack_width_m: float = 0.6
    row_pitch_m: float = 3.0
    riser_m: float = 2.0
    slack: float = 0.10
    service_loop_m: float = 1.0
    network_rack_units: int = 36

    def run_m(self, a: Rack, b: Rack) -> float:
        """The cable length between two racks, rounded up to a stock length."""
        if a == b:
            return IN_RACK_M
        return self.run_along(abs(a.col - b.col) * self.rack_width_m + abs(a.row - b.row) * self.row_pitch_m)

    def run_along(self, along: float) -> float:
        """The cable length for `along` metres of tray between two different racks."""
        return _run(along, self.riser_m, self.slack, self.service_loop_m)

    def longest_run(self, racks_a: Iterable[Rack], racks_b: Iterable[Rack]) -> float:
        """The longest run between any rack of one set and any of the other, in time linear
        in the sets: the largest weighted Manhattan distance is the largest of four
        sign-combined extremes."""
        a, b = list(set(racks_a)), list(set(racks_b))
        if not a or not b:
            return 0.0
        w, p = self.rack_width_m, self.row_pitch_m
        along = max(
            max(sx * r.col * w + sy * r.row * p for r in a) + max(-sx * r.col * w - sy * r.row * p for r in b)
            for sx in (1, -1)
            for sy in (1, -1)
        )
        if along <= 1e-9:
            return IN_RACK_M
        return self.run_along(along)

    def assumptions(self) -> list[str]:
        return [
            f"{self.servers_per_rack} server(s) per compute rack ({self.rack_kw:g} kW per rack); "
            f"{self.racks_per_row or 'two scalable units and their leaf rack to a row (at most 25 racks),'} "
            f"{'racks per row, ' if self.racks_per_row else ''}each row led by the network rack(s) of its leaves "
            "(TIA-942 equipment distribution area); spines in network rows in the middle of the hall (horizontal "
            "distribution area); cores in the main distribution area one aisle past the last row; all switches in "
            "one network rack where they fit one.",
            f"Runs: {self.rack_width_m:g} m per rack along a row, {self.row_pitch_m:g} m per row, "
            f"{self.riser_m:g} m up to the tray and {self.riser_m:g} m down, {self.slack:.0%} slack and a "
            f"{self.service_loop_m:g} m service loop, rounded up to a stock length; in-rack cords 2 m.",
        ]


def stock_length(metres: float) -> float:
    """The shortest stock cord at least `metres` long (longer runs: whole tens of metres)."""
    i = bisect_left(STOCK_LENGTHS_M, metres)
    if i < len(STOCK_LENGTHS_M):
        return float(STOCK_LENGTHS_M[i])
    return float(math.ceil(metres / 10) * 10)


@lru_cache(maxsize=65536)
def _run(along: float, riser: float, slack: float, loop: float) -> float:
    return stock_length((along + 2 * riser) * (1 + slack) + loop)


def resolve(platform: Platform, settings: FloorSettings | None = None) -> Floor:
    """The floor for a platform: the settings given, the reference architecture's for the rest.

    A rack-scale system (NVL72) is one system per rack whatever is set: its NVLink spine
    is the rack."""
    settings = settings or FloorSettings()
    if platform.rack_scale:
        return Floor(
            servers_per_rack=1, rack_kw=settings.rack_kw or NVL72_RACK_KW, racks_per_row=settings.racks_per_row
        )
    server_kw = SERVER_KW.get(platform.gpu_model, DEFAULT_SERVER_KW)
    per_rack = settings.servers_per_rack
    if per_rack is None:
        per_rack = RA_SERVERS_PER_RACK
        if settings.rack_kw is not None:
            per_rack = max(1, min(RA_SERVERS_PER_RACK, int(settings.rack_kw // server_kw)))
    rack_kw = settings.rack_kw if settings.rack_kw is not None else round(per_rack * server_kw, 1)
    return Floor(servers_per_rack=per_rack, rack_kw=rack_kw, racks_per_row=settings.racks_per_row)
