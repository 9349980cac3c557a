"""GPUs per system ("2 DGX H200" = 16 GPUs): the hardware catalogue first, our table second.

A rack-scale system is counted in racks but networked per compute tray: "2 GB200 NVL72"
are 144 GPUs in 36 nodes of 4 (the catalogue's server is the tray, and its NVLink
domain, 72 GPUs, is the rack).

The catalogue (`knowledge.catalogue.server_named`) is the source of truth for hardware. It
is imported lazily so that extraction works, from the fallback table in
data/entities.yaml, when the knowledge package is missing or cannot answer.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import cache

from extraction.resources import load
from knowledge import catalogue

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class SystemShape:
    """GPUs per node, GPUs per counted unit (a server, or a rack), the GPU model, and who said so."""

    gpus: int
    unit_gpus: int
    gpu_model: str
    source: str  # "catalogue" or "extraction table"

    @property
    def nodes_per_unit(self) -> int:
        return max(1, self.unit_gpus // self.gpus)


@cache
def system_shape(system_id: str) -> SystemShape | None:
    """GPUs and GPU model of a system id such as "DGX H100" (None when nobody knows it)."""
    shape = _from_catalogue(system_id)
    if shape is not None:
        return shape
    for item in load("entities")["system"]["systems"]:
        if item["id"] == system_id:
            gpus = int(item["gpus"])
            unit = int(item.get("unit_gpus", gpus))
            return SystemShape(gpus, unit, str(item["gpu_model"]), "extraction table")
    return None


def _from_catalogue(system_id: str) -> SystemShape | None:
    try:
        server = catalogue.server_named(system_id)
    except Exception:
        logger.warning("knowledge.catalogue.server_named(%r) failed; using the extraction table", system_id)
        return None
    gpus = getattr(server, "gpus", None)
    model = getattr(server, "gpu_model", None)
    if server is None or not isinstance(gpus, int) or gpus < 1 or not model:
        return None
    domain = getattr(server, "nvlink_domain_gpus", None)
    unit = domain if isinstance(domain, int) and domain > gpus and domain % gpus == 0 else gpus
    return SystemShape(gpus, unit, _canonical_gpu(str(model)), "catalogue")


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
