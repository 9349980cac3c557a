"""Typed access to what a fabric needs configured (`knowledge/sources/fabric_settings.yaml`).

    >>> from knowledge import fabric_settings
    >>> [s.setting for s in fabric_settings.settings("roce", "spectrum")][:3]
    ['PFC', 'PFC watchdog', 'ECN']
    >>> round(fabric_settings.headroom().bytes_at(400, 100) / 1000)
    126

Read once per process and validated when loaded: a setting without a fabric, area or
value fails at start-up with its id, not in a customer's report.
"""

from __future__ import annotations

import functools
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from knowledge import sources

Fabric = Literal["roce", "infiniband", "ethernet"]
Family = Literal["spectrum", "quantum", "any"]


class SettingFact(BaseModel):
    """One setting of a fabric, for the switch families it applies to."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    id: str
    fabric: Fabric
    switch_families: tuple[Family, ...] = Field(min_length=1)
    area: Literal["switch", "nic", "nccl", "rccl", "subnet_manager"]
    library: Literal["NCCL", "RCCL", "any"] = "any"  # the collective library a setting is for
    setting: str = Field(min_length=1)
    value: str = Field(min_length=1)
    why: str = Field(min_length=1)
    source: str = Field(min_length=1)


class Headroom(BaseModel):
    """PFC headroom arithmetic: two maximum frames, the cable round trip and the peer's
    response time, at line rate (IEEE 802.1Qbb delay components)."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    id: str
    mtu_bytes: int = Field(gt=0)
    propagation_ns_per_m: float = Field(gt=0)
    response_ns_by_gbps: dict[int, float]
    cable_m: tuple[int, ...] = Field(min_length=1)
    source: str

    @field_validator("response_ns_by_gbps")
    @classmethod
    def _speeds(cls, value: dict[int, float]) -> dict[int, float]:
        if not value or any(v <= 0 for v in value.values()):
            raise ValueError("response_ns_by_gbps: give a positive response time for at least one speed")
        return value

    def bytes_at(self, gbps: int, cable_m: float) -> float:
        """Headroom bytes per lossless port at a link speed and cable length."""
        speed = min(self.response_ns_by_gbps, key=lambda s: (abs(s - gbps), -s))
        bytes_per_ns = gbps / 8
        in_flight_ns = 2 * cable_m * self.propagation_ns_per_m + self.response_ns_by_gbps[speed]
        return 2 * self.mtu_bytes + in_flight_ns * bytes_per_ns


@functools.cache
def _settings() -> tuple[SettingFact, ...]:
    return tuple(SettingFact.model_validate(r.data) for r in sources.of_kinds("fabric_settings"))


def settings(fabric: str, family: str, library: str = "NCCL") -> list[SettingFact]:
    """The settings of a fabric for a switch family and a collective library (NCCL on
    NVIDIA GPUs, RCCL on AMD's), vendor- and library-neutral ones included, in file order.

        >>> [s.setting for s in settings("infiniband", "quantum", "RCCL") if s.area == "rccl"]
        ['NCCL_IB_HCA / NCCL_IB_SL (read by RCCL)']
    """
    return [
        s
        for s in _settings()
        if s.fabric == fabric
        and (family in s.switch_families or "any" in s.switch_families)
        and s.library in (library, "any")
    ]


@functools.cache
def headroom() -> Headroom:
    entries = [Headroom.model_validate(r.data) for r in sources.of_kinds("pfc_headroom")]
    if len(entries) != 1:
        raise ValueError(f"fabric_settings.yaml: expected one pfc_headroom entry, found {len(entries)}")
    return entries[0]


def switch_family(switch_name: str | None) -> str:
    """The settings family of a catalogue switch ("NVIDIA Spectrum-4 SN5600" -> spectrum)."""
    name = (switch_name or "").lower()
    if "spectrum" in name:
        return "spectrum"
    if "quantum" in name:
        return "quantum"
    return "any"
