"""GPUs per system ("2 DGX H200" = 16 GPUs), from the hardware catalogue alone.

A rack-scale system is counted in racks but networked per compute tray: "2 GB200 NVL72"
are 144 GPUs in 36 nodes of 4 (the catalogue's server is the tray, and its NVLink
domain, 72 GPUs, is the rack).

The catalogue (`knowledge.catalogue.server_named`, knowledge/sources/hardware.yaml) is the
one home of these facts; data/entities.yaml only holds the names people write. A system
the catalogue does not carry (DGX-2) is still recognised by name but gives no count.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from knowledge import catalogue
from understanding.extraction.resources import load


@dataclass(frozen=True)
class SystemShape:
    """GPUs per node, GPUs per counted unit (a server, or a rack) and the GPU model."""

    gpus: int
    unit_gpus: int
    gpu_model: str
    #: units (servers or racks) of a DGX SuperPOD scalable unit, 0 when none is published
    scalable_unit: int = 0

    @property
    def nodes_per_unit(self) -> int:
        return max(1, self.unit_gpus // self.gpus)


@cache
def system_shape(system_id: str) -> SystemShape | None:
    """GPUs and GPU model of a system id such as "DGX H100" (None when the catalogue does not know it)."""
    server = catalogue.server_named(system_id)
    return _shape(server) if server is not None else None


@cache
def rack_of(gpu_model: str | None) -> SystemShape | None:
    """The rack-scale system a GPU comes in ("GB300" -> racks of 72 in trays of 4), or None
    for a GPU of ordinary servers: "24 NVL72 racks of GB300", "what if 16 racks?" after a
    GB200 design."""
    server = catalogue.server_for(gpu_model)
    return _shape(server) if server is not None and server.rack_scale else None


def server_of(gpu_model: str | None) -> SystemShape | None:
    """The server (or rack) a GPU comes in, for "1 SU of GB200" or "4 SUs of B200": the
    reference architecture's system of that GPU."""
    server = catalogue.server_for(gpu_model)
    return _shape(server) if server is not None else None


def _shape(server: catalogue.Server) -> SystemShape:
    domain = server.nvlink_domain_gpus
    unit = domain if domain > server.gpus and domain % server.gpus == 0 else server.gpus
    return SystemShape(server.gpus, unit, _canonical_gpu(server.gpu_model), server.superpod_su)


def _canonical_gpu(name: str) -> str:
    """The extractor's spelling of a GPU model the catalogue names ("H100 SXM5" -> "H100")."""
    lowered = name.lower()
    best = name
    best_length = 0
    for model in load("entities")["gpu"]["models"]:
        for alias in [model["id"].lower(), *model["aliases"]]:
            if (lowered == alias or lowered.startswith(alias + " ")) and len(alias) > best_length:
                best, best_length = model["id"], len(alias)
    return best
