"""The schema of each kind of knowledge entry, checked when the sources load.

`SourceEntry` holds the fields every entry has (id, title, text, source, aliases, note);
each kind adds its own, typed, and refuses fields it does not know, so a misspelled
field ("latncy") fails the build with the file and entry named. A kind not listed here
is refused: add its schema when adding a kind.

The kinds whose files are being reworked on other branches this round (hardware, links,
cost, RoCE, ports) still accept extra fields (`_Open`); their known fields are typed.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

ID_PATTERN = r"^[a-z0-9]+(?:-[a-z0-9]+)*$"


class SourceEntry(BaseModel):
    """The fields every knowledge entry has."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    id: str = Field(pattern=ID_PATTERN)
    title: str = Field(min_length=1)
    text: str = Field(min_length=1)
    source: str = Field(min_length=1)
    aliases: list[str] = Field(default_factory=list)
    # paraphrases of the questions the entry answers, indexed for search (issue 14)
    questions: list[str] = Field(default_factory=list)
    note: str = ""


class _Open(SourceEntry):
    model_config = ConfigDict(extra="allow")


class Faq(SourceEntry):
    question: str
    answer: str
    numbers: dict[str, Any] = Field(default_factory=dict)


class Figure(SourceEntry):
    value: int | float | str | list[int | float]
    unit: str
    label: str


class Term(SourceEntry):
    term: str


class Technology(SourceEntry):
    technology: str
    gbps: int | None
    bandwidth: str
    latency: str
    latency_us: str
    rdma: str
    cost: str
    ecosystem: str
    best_for: str


class Generation(SourceEntry):
    technology: str
    gbps: int
    status: str
    latency: str = ""
    nics: list[str]
    switches: list[str]
    switches_per_guide: list[str] = Field(default_factory=list)


class TechnologyNote(SourceEntry):
    workload: str = ""
    recommended: list[str] = Field(default_factory=list)
    gbps: int | None = None
    gbps_options: list[int] = Field(default_factory=list)
    load_balancing: str = ""
    requires: list[str] = Field(default_factory=list)
    performance_penalty_pct: list[float] = Field(default_factory=list)


class Topology(SourceEntry):
    kind: Literal["single_node", "fat_tree", "rail_optimized", "dragonfly_plus"]
    bisection: str
    scale: str
    when_to_use: str
    switch_cost: str = ""


class SwitchEntry(_Open):
    model: str
    name: str
    fabric: Literal["infiniband", "ethernet"]
    generation: str
    ports: int = Field(ge=1)
    port_gbps: int = Field(ge=1)


class NicEntry(_Open):
    model: str
    name: str
    max_gbps: int = Field(ge=1)
    protocols: list[str]


class ServerEntry(_Open):
    model: str
    gpu_model: str
    gpus: int = Field(ge=1)
    form: Literal["sxm", "pcie"]


class LinkEntry(_Open):
    technology: str
    nominal_gbps: int = Field(ge=1)
    achievable_busbw_gbytes: float = Field(gt=0)


class CostEntry(_Open):
    pass


class RoceEntry(_Open):
    setting: str = ""
    value: str = ""
    why: str = ""


class PortsEntry(_Open):
    server: str = ""
    layout: list[dict[str, Any]] = Field(default_factory=list)


class FabricSettingEntry(SourceEntry):
    """A switch, NIC, NCCL or subnet-manager setting (knowledge/fabric_settings.py reads them)."""

    fabric: Literal["roce", "infiniband", "ethernet"]
    switch_families: list[Literal["spectrum", "quantum", "any"]] = Field(min_length=1)
    area: Literal["switch", "nic", "nccl", "rccl", "subnet_manager"]
    setting: str = Field(min_length=1)
    value: str = Field(min_length=1)
    why: str = Field(min_length=1)
    library: Literal["NCCL", "RCCL", "any"] = "any"


class HeadroomEntry(SourceEntry):
    fabric: Literal["roce"]
    mtu_bytes: int = Field(gt=0)
    propagation_ns_per_m: float = Field(gt=0)
    response_ns_by_gbps: dict[int, float]
    cable_m: list[int] = Field(min_length=1)


class GpuEntry(SourceEntry):
    gpu_model: str = Field(min_length=1)
    memory_gb: float = Field(gt=0)
    bf16_dense_tflops: float = Field(gt=0)


class ModelEntry(SourceEntry):
    """A published model's shape: what the parallelism plan and the all-to-all need."""

    model: str = Field(min_length=1)
    params_b: float = Field(gt=0)
    active_params_b: float = Field(gt=0)
    layers: int = Field(ge=1)
    hidden_size: int = Field(ge=1)
    attention_heads: int = Field(ge=1)
    experts: int = Field(ge=0)
    experts_per_token: int = Field(ge=0)


class NcclResultEntry(_Open):
    """A published nccl-tests result the all-reduce model is checked against."""

    gpu_model: str
    fabric: str
    nodes: int = Field(ge=1)
    gpus_per_node: int = Field(ge=1)
    message_bytes: int = Field(ge=1)
    busbw_gbytes_low: float = Field(gt=0)
    busbw_gbytes_high: float = Field(gt=0)


class PriceEntry(SourceEntry):
    """A dated price; knowledge/pricebook.py checks the range, the date and the key."""

    key: str
    category: str
    part_number: str = Field(min_length=1)
    description: str = Field(min_length=1)
    usd: tuple[float, float]
    date: str
    watts: float | None = Field(default=None, ge=0)
    rack_units: float | None = Field(default=None, ge=0)


class BomAssumptionsEntry(_Open):
    servers_per_rack: int = Field(ge=1)


#: The schema of every kind (top-level key of a source file).
KINDS: dict[str, type[SourceEntry]] = {
    "faq": Faq,
    "summary": SourceEntry,
    "figures": Figure,
    "takeaways": SourceEntry,
    "glossary": Term,
    "technologies": Technology,
    "generations": Generation,
    "technology_notes": TechnologyNote,
    "topologies": Topology,
    "hardware_switches": SwitchEntry,
    "hardware_nics": NicEntry,
    "hardware_servers": ServerEntry,
    "links": LinkEntry,
    "cost": CostEntry,
    "roce": RoceEntry,
    "ports": PortsEntry,
    "fabric_settings": FabricSettingEntry,
    "pfc_headroom": HeadroomEntry,
    "gpus": GpuEntry,
    "models": ModelEntry,
    "nccl_results": NcclResultEntry,
    "price_book": PriceEntry,
    "server_prices": PriceEntry,  # what one GPU server or rack-scale system costs (issue 21)
    "bom_assumptions": BomAssumptionsEntry,
    "practice": SourceEntry,  # how fabrics are built and run, in customers' words (issue 14)
}
