"""Typed access to the hardware, link, cost and RoCE facts the sizing models need.

    >>> from knowledge import catalogue
    >>> catalogue.server_for("h100").model
    'DGX H100'
    >>> catalogue.switch_for("infiniband_ndr", 400).radix_at(400)
    64
    >>> catalogue.max_nic_gbps("A100")
    200

The facts come from `knowledge/sources/hardware.yaml`, `links.yaml`, `cost.yaml` and
`roce.yaml`, read once per process; the database is not needed. Technology names are
the contract's (`rules.models.Technology`): infiniband_hdr, infiniband_ndr,
infiniband_xdr, rocev2, ethernet, nvlink_only; links add the intra-node technologies
nvlink, infinity_fabric and pcie. A lookup that cannot be answered raises
`NotInCatalogue` (a LookupError) naming what is known; the `*_for` lookups by GPU model
return None for an unknown or missing model, because callers then fall back to defaults.
"""

from __future__ import annotations

import functools
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, model_validator

from knowledge import sources


class NotInCatalogue(LookupError):
    """The catalogue has no such item; the message says what it does have."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "not in catalogue"


class _Fact(BaseModel):
    """A catalogue fact: read-only, built from a source entry (extra fields ignored)."""

    model_config = ConfigDict(extra="ignore", frozen=True)


# ----------------------------------------------------------------------------- models


class PortConfig(_Fact):
    ports: int
    gbps: int


class Switch(_Fact):
    id: str
    model: str
    name: str
    fabric: Literal["infiniband", "ethernet"]
    generation: Literal["hdr", "ndr", "xdr", "ethernet"]
    ports: int
    port_gbps: int
    alt_configs: list[PortConfig] = []
    cages: str = ""
    preferred_for: list[str] = []
    aliases: list[str] = []
    source: str
    note: str = ""

    def configs(self) -> list[PortConfig]:
        """Every way the switch's ports can be run: native first, then the split ones."""
        return [PortConfig(ports=self.ports, gbps=self.port_gbps), *self.alt_configs]

    def radix_at(self, gbps: int) -> int:
        """Ports at `gbps`: from the configuration at that speed, else the largest one
        whose ports are faster (a port runs one link at a lower speed); 0 when every port
        is slower than `gbps` (see `supports`)."""
        exact = [c.ports for c in self.configs() if c.gbps == gbps]
        if exact:
            return max(exact)
        faster = [c.ports for c in self.configs() if c.gbps > gbps]
        return max(faster, default=0)

    def supports(self, gbps: int) -> bool:
        return any(c.gbps >= gbps for c in self.configs())


class Nic(_Fact):
    id: str
    model: str
    name: str
    max_gbps: int
    protocols: list[str]
    aliases: list[str] = []
    source: str
    note: str = ""


class Server(_Fact):
    id: str
    model: str
    aliases: list[str] = []
    gpu_model: str
    gpus: int
    nvlink_domain_gpus: int
    gpu_memory_gb: int = 0
    form: Literal["sxm", "pcie"]
    canonical: bool = False
    fabric_manager_slot: bool = False
    compute_nic: str | None
    compute_ports: int
    compute_gbps: int
    compute_connector: str = ""
    storage_ports: int
    storage_gbps: int
    inband_ports: int
    inband_gbps: int
    oob_ports: int
    oob_gbps: int
    inference_ports: int
    inference_gbps: int
    #: "converged": storage and in-band management share one Ethernet fabric, as the
    #: system's reference architecture builds it; "separate": a fabric each.
    frontend: Literal["separate", "converged"] = "separate"
    frontend_source: str = ""
    #: units of a DGX SuperPOD scalable unit, counted as the system is (servers, or racks
    #: for a rack-scale system): "4 SUs of DGX H100" are 128 servers; 0 when no DGX
    #: SuperPOD reference architecture is built of this system
    superpod_su: int = 0
    superpod_su_source: str = ""
    source: str
    note: str = ""

    @model_validator(mode="after")
    def _su_has_a_source(self) -> Server:
        if self.superpod_su and not self.superpod_su_source.strip():
            raise ValueError(f"{self.id}: superpod_su needs superpod_su_source (the reference architecture)")
        return self

    @property
    def rack_scale(self) -> bool:
        """An NVL72-style system: its NVLink domain spans several compute trays (hosts)."""
        return self.nvlink_domain_gpus > self.gpus

    @property
    def has_nvlink(self) -> bool:
        return self.nvlink_domain_gpus > 1

    @property
    def node_gpus(self) -> int:
        """GPUs of one node as the advisor sizes it: the NVLink domain (72 for an NVL72
        rack), else the server's GPUs."""
        return self.nvlink_domain_gpus if self.rack_scale else self.gpus


class Link(_Fact):
    id: str
    title: str
    technology: str
    gpu_models: list[str] = []
    nominal_gbps: int
    achievable_busbw_gbytes: float
    latency_us_typical: str
    latency_us_model: float
    source: str
    note: str = ""


class CostReference(_Fact):
    """The guide's network cost figures for a 16-node DGX H100 cluster: the calibration
    check of the bill of materials (designs are priced from knowledge/pricebook.py).

    `infiniband_usd` is the guide's InfiniBand figure; the guide calls it HDR, but the
    cluster's InfiniBand is NDR 400G (vendor), so it is checked against
    `infiniband_generation` at `infiniband_gbps` (see `note`).
    """

    nodes: int
    server_model: str
    gpus: int
    includes: list[str]
    infiniband_usd: tuple[int, int]
    infiniband_generation: str
    infiniband_gbps: int
    ethernet_400g_usd: tuple[int, int]
    infiniband_premium_factor: tuple[float, float]
    infiniband_throughput_advantage_pct: tuple[float, float]
    example_cluster_usd: int
    example_premium_usd: int
    example_premium_share_pct: float
    source: str
    note: str = ""


class RoceCheck(_Fact):
    """One item of the RoCE configuration checklist."""

    id: str
    setting: str
    value: str
    why: str
    source: str
    note: str = ""


# ---------------------------------------------------------------------------- loading


def _entries(kind: str) -> list[dict[str, Any]]:
    return [r.data for r in sources.of_kinds(kind)]


@functools.cache
def _switches() -> tuple[Switch, ...]:
    return tuple(Switch.model_validate(d) for d in _entries("hardware_switches"))


@functools.cache
def _nics() -> tuple[Nic, ...]:
    return tuple(Nic.model_validate(d) for d in _entries("hardware_nics"))


@functools.cache
def _servers() -> tuple[Server, ...]:
    return tuple(Server.model_validate(d) for d in _entries("hardware_servers"))


@functools.cache
def _links() -> tuple[Link, ...]:
    return tuple(Link.model_validate(d) for d in _entries("links"))


def _norm(text: str) -> str:
    """Lower-case letters and digits only: "DGX-H200" and "dgx h200" compare equal."""
    return re.sub(r"[^a-z0-9]", "", str(text).lower())


def _technology_name(technology: Any) -> str:
    return str(getattr(technology, "value", technology)).strip().lower()


_IB_GENERATIONS = {"infiniband_hdr": "hdr", "infiniband_ndr": "ndr", "infiniband_xdr": "xdr"}
_ETHERNET_TECHNOLOGIES = {"rocev2", "ethernet"}

# ----------------------------------------------------------------------------- switches


def switches() -> list[Switch]:
    """Every switch in the catalogue, in source order."""
    return list(_switches())


def switch(model: str) -> Switch:
    """A switch by model ("QM9700"), name, alias or id, ignoring case, spaces and hyphens."""
    key = _norm(model)
    for s in _switches():
        if key in {_norm(s.model), _norm(s.name), _norm(s.id), *(_norm(a) for a in s.aliases)}:
            return s
    raise NotInCatalogue(f"no switch {model!r}; known: {', '.join(s.model for s in _switches())}")


def switch_for(technology: Any, link_gbps: int) -> Switch:
    """The switch a fabric of `technology` with `link_gbps` links is sized with.

    The switch that lists "<technology>@<gbps>" in `preferred_for` wins; otherwise the
    switch of the right fabric (and InfiniBand generation) with the most ports at that
    speed.
    """
    tech = _technology_name(technology)
    if tech in _IB_GENERATIONS:
        candidates = [s for s in _switches() if s.fabric == "infiniband" and s.generation == _IB_GENERATIONS[tech]]
    elif tech in _ETHERNET_TECHNOLOGIES:
        candidates = [s for s in _switches() if s.fabric == "ethernet"]
    else:
        known = ", ".join([*_IB_GENERATIONS, *sorted(_ETHERNET_TECHNOLOGIES)])
        raise NotInCatalogue(f"no switch for technology {tech!r}; switched fabrics: {known}")
    wanted = f"{tech}@{int(link_gbps)}"
    for s in candidates:
        if wanted in s.preferred_for:
            return s
    usable = [s for s in candidates if s.supports(link_gbps)]
    if not usable:
        speeds = sorted({c.gbps for s in candidates for c in s.configs()})
        raise NotInCatalogue(f"no {tech} switch carries {link_gbps} Gb/s links; speeds: {speeds}")
    exact = [s for s in usable if any(c.gbps == link_gbps for c in s.configs())]
    return max(exact or usable, key=lambda s: s.radix_at(link_gbps))


# --------------------------------------------------------------------------------- NICs


def nics() -> list[Nic]:
    """Every NIC in the catalogue, in source order."""
    return list(_nics())


def nic(model: str) -> Nic:
    """A NIC by model ("ConnectX-7"), name, alias or id, ignoring case, spaces and hyphens."""
    key = _norm(model)
    for n in _nics():
        if key in {_norm(n.model), _norm(n.name), _norm(n.id), *(_norm(a) for a in n.aliases)}:
            return n
    raise NotInCatalogue(f"no NIC {model!r}; known: {', '.join(n.model for n in _nics())}")


# ------------------------------------------------------------------------------ servers


def servers() -> list[Server]:
    """Every GPU server in the catalogue, in source order."""
    return list(_servers())


def gpu_models() -> list[str]:
    """The GPU models the catalogue knows (H100, H200, B200, GB200, A100, L40S, ...)."""
    return list(dict.fromkeys(s.gpu_model for s in _servers()))


@functools.lru_cache(maxsize=1024)
def _gpu_model_in(text: str) -> str | None:
    """The known GPU model `text` names: "h100", "NVIDIA H100 SXM5", "GB200 NVL72"."""
    models = {_norm(m): m for m in gpu_models()}
    whole = _norm(text)
    if whole in models:
        return models[whole]
    for token in re.split(r"[^a-z0-9]+", str(text).lower()):
        if token in models:
            return models[token]
    # "h100sxm": a known model followed by a non-digit suffix (but "l40" is not "l4")
    for key in sorted(models, key=len, reverse=True):
        if whole.startswith(key) and not whole[len(key)].isdigit():
            return models[key]
    return None


@functools.lru_cache(maxsize=1024)
def server_for(gpu_model: str | None) -> Server | None:
    """The canonical server for a GPU model (8-GPU DGX/HGX, or typical), or None."""
    if not gpu_model:
        return None
    model = _gpu_model_in(gpu_model)
    if model is None:
        return None
    matching = [s for s in _servers() if s.gpu_model == model]
    return next((s for s in matching if s.canonical), matching[0])


def server_named(text: str) -> Server | None:
    """A server by model name or alias ("dgx-h200", "DGX H100"), or None."""
    if not text:
        return None
    key = _norm(text)
    for s in _servers():
        if key in {_norm(s.model), *(_norm(a) for a in s.aliases)}:
            return s
    return None


def default_gpus_per_node(gpu_model: str | None) -> int | None:
    """GPUs per node of the GPU model's canonical server: 8 for DGX/HGX, the whole NVLink
    domain (72) for an NVL72 rack, whose rack is the unit it is bought and cabled in."""
    server = server_for(gpu_model)
    return server.node_gpus if server else None


def servers_for(gpu_model: str | None) -> list[Server]:
    """Every server of the catalogue built on the GPU model named (empty when unknown)."""
    model = _gpu_model_in(gpu_model) if gpu_model else None
    return [s for s in _servers() if s.gpu_model == model] if model else []


def max_nic_gbps(gpu_model: str | None) -> int | None:
    """The fastest compute link the canonical server's NIC carries (A100 -> 200).

    For PCIe inference servers, which have no compute ports, the inference-port speed.
    """
    server = server_for(gpu_model)
    if server is None:
        return None
    return server.compute_gbps if server.compute_ports else server.inference_gbps or None


# -------------------------------------------------------------------------------- links


def links() -> list[Link]:
    """Every link in the catalogue, in source order."""
    return list(_links())


def link(technology: Any, gbps: int | None = None) -> Link:
    """The link of a technology at `gbps` (the nearest speed; the default when None)."""
    tech = _technology_name(technology)
    if tech == "nvlink_only":
        tech = "nvlink"
    candidates = [item for item in _links() if item.technology == tech]
    if not candidates:
        known = ", ".join(dict.fromkeys(item.technology for item in _links()))
        raise NotInCatalogue(f"no link for technology {tech!r}; known: {known}")
    if gbps is None:
        return candidates[0]
    return min(candidates, key=lambda item: (abs(item.nominal_gbps - gbps), -item.nominal_gbps))


def nvlink(gpu_model: str | None) -> Link:
    """The intra-node link of a GPU model: NVLink, Infinity Fabric, or PCIe.

    No model given, or one the catalogue does not know: the default NVLink (H100, the
    server the advisor assumes and says it assumes; an unknown data-centre GPU such as
    H20 is an HGX board on NVLink far more often than a PCIe card).
    """
    model = _gpu_model_in(gpu_model) if gpu_model else None
    if model is None:
        return link("nvlink")
    for item in _links():
        if model in item.gpu_models:
            return item
    return link("pcie")


# --------------------------------------------------------------------------------- cost


@functools.cache
def cost_reference() -> CostReference:
    """The guide's 16-node DGX H100 network cost figures (the BOM's calibration check)."""
    by_id = {d["id"]: d for d in _entries("cost")}
    reference = by_id["cost-reference-16-node-dgx-h100"]
    premium = by_id["cost-infiniband-premium"]
    example = by_id["cost-premium-example"]
    return CostReference(
        nodes=reference["nodes"],
        server_model=reference["server"],
        gpus=reference["gpus"],
        includes=reference["includes"],
        infiniband_usd=tuple(reference["infiniband_usd"]),
        infiniband_generation=reference["infiniband_generation"],
        infiniband_gbps=reference["infiniband_gbps"],
        ethernet_400g_usd=tuple(reference["ethernet_400g_usd"]),
        infiniband_premium_factor=tuple(premium["premium_factor"]),
        infiniband_throughput_advantage_pct=tuple(premium["throughput_advantage_pct"]),
        example_cluster_usd=example["cluster_usd"],
        example_premium_usd=example["premium_usd"],
        example_premium_share_pct=example["premium_share_pct"],
        source=reference["source"],
        note=reference["note"],
    )


# --------------------------------------------------------------------------------- RoCE


@functools.cache
def _roce_checklist() -> tuple[RoceCheck, ...]:
    return tuple(RoceCheck.model_validate(d) for d in _entries("roce") if "setting" in d)


def roce_checklist() -> list[RoceCheck]:
    """What to configure for RoCEv2 (PFC, ECN, DCQCN, buffers, QoS, traffic engineering)."""
    return list(_roce_checklist())
