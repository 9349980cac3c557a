"""The medium of a link by its reach, and the parts that medium takes at each end.

Reach (NVIDIA LinkX product specifications): passive copper (DAC) to about 3 m;
multimode SR optics (400G SR4 / twin-port 2xSR4, MMA4Z00-NS400 / MMA4Z00-NS) to 50 m;
single-mode DR optics (400G DR4 / twin-port DR8, MMS4X00-NS400 / MMS4X00-NS, with
MFP7E30 single-mode crossover fibre) to 100 m; single-mode twin-port 2xFR4 (MMS4X50-NM)
to 2 km. At 100G and 200G an active optical cable (AOC) replaces both optics and the
fibre past copper reach. XDR (800G per port) has no copper or multimode part in
NVIDIA's LinkX XDR list: its links are single-mode DR4 (800GBASE-DR4 reach, 500 m).

A part's `links` says how many links one part carries: a twin-port OSFP module (two
400G links in one switch cage, or in one DGX H100/B200 cage) or a twin-port DAC carries
two; a single-port module, a fibre or an AOC one. The bill of materials counts
ceil(links / links per part) of each; the cabling plan names the same part on each row.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

MediaKind = Literal["dac", "aoc", "multimode", "single-mode DR", "single-mode FR", "copper"]
End = Literal["a", "b", "cable"]

DAC_REACH_M = 3.0
MULTIMODE_REACH_M = 50.0
DR_REACH_M = 100.0  # MMS4X00-NS / MMS4X00-NS400 with MFP7E30 fibre
XDR_DR_REACH_M = 500.0
FR_REACH_M = 2000.0

REACH_SOURCE = (
    "NVIDIA LinkX product specifications: DAC to ~3 m; multimode SR to 50 m (MMA4Z00-NS, MMA4Z00-NS400); "
    "single-mode DR to 100 m (MMS4X00-NS, MMS4X00-NS400); 2xFR4 to 2 km (MMS4X50-NM). NVIDIA DGX SuperPOD "
    "cabling guidance: leaf to spine runs of hundreds of metres are single-mode"
)


@dataclass(frozen=True, slots=True)
class Part:
    """A part a link takes: at end a, end b, or the cable between; `links` per part."""

    end: End
    key: str
    links: int = 1


@dataclass(frozen=True, slots=True)
class Media:
    kind: MediaKind
    reach_m: float
    parts: tuple[Part, ...]


class OutOfReach(ValueError):
    """No medium of the catalogue reaches this far at this speed."""


def _speed(gbps: int) -> int:
    if gbps <= 1:
        return 1
    for step in (100, 200, 400):
        if gbps <= step:
            return step
    return 800


def media_for(length_m: float, gbps: int, *, switch_ends: bool, twin_port: bool = False) -> Media:
    """The medium for a run of `length_m` at `gbps`: the cheapest that reaches.

    `switch_ends` is True for switch-to-switch links (both ends switch cages), False for
    a server's link (end a is the server, b the leaf); `twin_port` says the server's
    cages take twin-port modules (DGX H100/H200/B200)."""
    speed = _speed(gbps)
    if speed == 1:
        return Media("copper", 100.0, (Part("cable", "copper/rj45"),))
    if speed <= 200:
        if length_m <= DAC_REACH_M:
            return Media("dac", DAC_REACH_M, (Part("cable", f"dac/{speed}"),))
        return Media("aoc", MULTIMODE_REACH_M, (Part("cable", f"aoc/{speed}"),))
    if speed == 400:
        if length_m <= DAC_REACH_M:
            return Media("dac", DAC_REACH_M, (Part("cable", "dac/400", 2),))
        if length_m <= MULTIMODE_REACH_M:
            return Media("multimode", MULTIMODE_REACH_M, _optics("", switch_ends, twin_port, "fibre/mpo"))
        if length_m <= DR_REACH_M:
            return Media("single-mode DR", DR_REACH_M, _optics("-dr", switch_ends, twin_port, "fibre/mpo-sm"))
        if length_m <= FR_REACH_M:
            return Media(
                "single-mode FR",
                FR_REACH_M,
                (Part("a", "optic/twin-fr/400", 2), Part("b", "optic/twin-fr/400", 2), Part("cable", "fibre/lc-sm")),
            )
        raise OutOfReach(f"a {length_m:g} m run at {gbps}G is beyond 2xFR4's 2 km")
    if length_m <= XDR_DR_REACH_M:
        host = Part("a", "optic/twin/800", 2) if switch_ends else Part("a", "optic/single/800")
        return Media(
            "single-mode DR", XDR_DR_REACH_M, (host, Part("b", "optic/twin/800", 2), Part("cable", "fibre/mpo-sm"))
        )
    raise OutOfReach(f"a {length_m:g} m run at {gbps}G is beyond the 500 m of the XDR DR4 optics")


def _optics(suffix: str, switch_ends: bool, twin_port: bool, fibre: str) -> tuple[Part, ...]:
    switch = f"optic/twin{suffix}/400"
    if switch_ends:
        host = Part("a", switch, 2)
    elif twin_port:
        host = Part("a", f"optic/twin-flat{suffix}/400", 2)
    else:
        host = Part("a", f"optic/single{suffix}/400")
    return (host, Part("b", switch, 2), Part("cable", fibre))
