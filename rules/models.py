"""The contract between parts: what comes in (a workload profile) and what goes out
(a recommendation).

Extraction produces a `ProfileDraft`, the conversation and the API accumulate it, the
rules engine takes a complete `WorkloadProfile` and returns a `Recommendation`, and
every renderer (chat, Slack, CLI, JSON, SVG) reads only these models. The REST API
publishes them as its schema, so every field carries a description and an example.
"""

from __future__ import annotations

import math
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

MAX_GPUS = 1_000_000
MAX_GPUS_PER_NODE = 72  # GB200/GB300 NVL72: the largest NVLink domain sold as one system
UNNAMED_GPUS_PER_NODE = 8  # no GPU named: an 8-GPU DGX/HGX baseboard, the common server


class Workload(StrEnum):
    training = "training"
    inference = "inference"
    mixed = "mixed"


class Technology(StrEnum):
    """The fabrics the advisor can recommend (names other parts and checks rely on)."""

    nvlink_only = "nvlink_only"
    infiniband_hdr = "infiniband_hdr"
    infiniband_ndr = "infiniband_ndr"
    infiniband_xdr = "infiniband_xdr"
    rocev2 = "rocev2"
    ethernet = "ethernet"


class Preference(StrEnum):
    """A fabric the customer says they want; `infiniband` leaves the generation to the rules."""

    infiniband = "infiniband"
    infiniband_hdr = "infiniband_hdr"
    infiniband_ndr = "infiniband_ndr"
    infiniband_xdr = "infiniband_xdr"
    rocev2 = "rocev2"
    ethernet = "ethernet"


class TopologyKind(StrEnum):
    single_node = "single_node"
    fat_tree = "fat_tree"
    rail_optimized = "rail_optimized"
    dragonfly_plus = "dragonfly_plus"


class PortRole(StrEnum):
    compute = "compute"
    storage = "storage"
    inband_management = "inband_management"
    out_of_band = "out_of_band"
    inference_traffic = "inference_traffic"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", use_enum_values=False)


# ----------------------------------------------------------------------------- profile

_PROFILE_FIELDS = dict(
    workload=(
        "What the cluster runs: `training` (pretraining, fine-tuning), `inference` (serving) or `mixed`.",
        "training",
    ),
    gpu_count=(f"Total GPUs in the cluster, 1 to {MAX_GPUS:,}.", 128),
    gpus_per_node=(
        f"GPUs per server, 1 to {MAX_GPUS_PER_NODE}. Defaults to the server's (8 for DGX/HGX, 72 for a "
        "GB200/GB300 NVL72 rack, whose NVLink domain is the node), else 8.",
        8,
    ),
    node_count=("Number of GPU servers, 1 or more.", 16),
    gpu_model=("GPU model, e.g. H100, H200, B200, A100, L40S, MI300X.", "H100"),
    model_params_b=("Size of the largest model trained or served, in billions of parameters.", 70),
    budget_usd=("Total cluster budget in US dollars (servers and network).", 5_000_000),
    network_budget_usd=(
        "Budget for the network alone (switches, NICs, cables) in US dollars, when the customer "
        "states one; the fabric is chosen to fit it where the workload allows.",
        1_000_000,
    ),
    cost_sensitive=("True when cost matters more than the last 10-20 % of speed.", False),
    existing_ethernet=("True when the site already runs a high-speed Ethernet fabric.", False),
    prefer=("A fabric the customer prefers, honoured where it can carry the workload.", None),
    tp=(
        "Tensor-parallel degree (GPUs that split each layer), kept inside the NVLink domain. "
        "Default: the smallest power of two, up to 8, that the memory needs.",
        8,
    ),
    pp=("Pipeline-parallel degree (stages the layers are split into). Default: as the memory needs.", 16),
    message_gb=(
        "All-reduce message per GPU in GB, as nccl-tests sizes it (`-b 8G` is 8); bypasses the "
        "parallelism plan, for comparing the estimate with a benchmark.",
        8,
    ),
    moe=("True for a mixture-of-experts model: its all-to-all is added to each step.", False),
    active_params_b=(
        "Parameters active per token, billions (mixture-of-experts); default the whole model when dense, "
        "a quarter of it for MoE.",
        37,
    ),
    tokens_per_step=(
        "Tokens in one optimizer step (the global batch). Default: 4M tokens (Llama 2/3 pretraining), "
        "at least one 8,192-token sequence per data-parallel replica.",
        4_194_304,
    ),
    oversubscription=(
        "N of N:1 above the AI zone: the zone spines carry N times more down than up to the core (7 in "
        'Meta\'s 24K-GPU RoCE clusters). 1 (the default) is non-blocking throughout. Also read as "7:1".',
        7,
    ),
    zone_gpus=(
        "GPUs per AI zone: a non-blocking two-tier fabric (leaves and spines); the zones are joined by a "
        "core tier oversubscribed N:1. Default: the largest zone the switches hold at that ratio.",
        3072,
    ),
    link_gbps=(
        'Speed of the compute links asked for, Gb/s: 100, 200, 400 or 800 ("what if we use 800G?"). The fabric '
        "is designed at it (for InfiniBand, the generation of that speed: HDR 200, NDR 400, XDR 800). A speed "
        "faster than the servers' NICs carry is refused with the reason, never applied. Default: the fastest "
        "the NICs carry (training) or what the rules pick.",
        800,
    ),
)


#: compute link speeds a profile may ask for, Gb/s: the port speeds of NVIDIA ConnectX-6 (100/200),
#: ConnectX-7 (400) and ConnectX-8 (800) adapters (NVIDIA ConnectX datasheets)
LINK_SPEEDS = (100, 200, 400, 800)

#: the profile's numbers: JSON's true and false are refused there, not read as 1 and 0
NUMBER_FIELDS = (
    "gpu_count",
    "gpus_per_node",
    "node_count",
    "model_params_b",
    "budget_usd",
    "network_budget_usd",
    "tp",
    "pp",
    "link_gbps",
    "message_gb",
    "active_params_b",
    "tokens_per_step",
    "oversubscription",
    "zone_gpus",
)


def parse_ratio(text: str) -> float:
    """An oversubscription as written: "7:1", "7 : 1" or "7" is 7.0; raises ValueError
    (with the accepted forms) on anything else or a ratio below 1."""
    head, sep, tail = text.strip().partition(":")
    try:
        value = float(head) / (float(tail) if sep else 1.0)
    except (ValueError, ZeroDivisionError):
        raise ValueError(f"oversubscription: write it as N:1 or N (e.g. 7:1), got {text!r}") from None
    if not value >= 1:
        raise ValueError(f"oversubscription: must be 1 (non-blocking) or more, got {text!r}")
    return value


def _field(name: str, **constraints: Any) -> Any:
    description, example = _PROFILE_FIELDS[name]
    examples = [example] if example is not None else ["rocev2"]
    return Field(default=None, description=description, examples=examples, **constraints)


class ProfileDraft(_Model):
    """What is known so far about a workload; every field may still be missing.

    Extraction returns one per sentence, a conversation merges them turn by turn.
    """

    workload: Workload | None = _field("workload")
    gpu_count: int | None = _field("gpu_count", ge=1, le=MAX_GPUS)
    gpus_per_node: int | None = _field("gpus_per_node", ge=1, le=MAX_GPUS_PER_NODE)
    node_count: int | None = _field("node_count", ge=1, le=MAX_GPUS)
    gpu_model: str | None = _field("gpu_model", min_length=1, max_length=40)
    model_params_b: float | None = _field("model_params_b", gt=0, le=1_000_000)
    budget_usd: float | None = _field("budget_usd", gt=0, le=1e12)
    network_budget_usd: float | None = _field("network_budget_usd", gt=0, le=1e12)
    cost_sensitive: bool | None = _field("cost_sensitive", strict=True)
    existing_ethernet: bool | None = _field("existing_ethernet", strict=True)
    prefer: Preference | None = _field("prefer")
    # the training job's plan, as a customer states it ("TP 8, PP 16", "a mixture-of-experts
    # model"); the traffic model chooses what is left out. Whether tp x pp fits the cluster
    # is checked once the size is known (WorkloadProfile).
    tp: int | None = _field("tp", ge=1, le=MAX_GPUS_PER_NODE)
    pp: int | None = _field("pp", ge=1, le=1024)
    moe: bool | None = _field("moe", strict=True)
    link_gbps: int | None = _field("link_gbps", ge=100, le=800)

    @field_validator(*NUMBER_FIELDS, mode="before", check_fields=False)
    @classmethod
    def _not_a_boolean(cls, value: Any, info: ValidationInfo) -> Any:
        """`"gpu_count": true` is no count: pydantic's lax mode would read it as 1."""
        if isinstance(value, bool):
            raise ValueError(f"{info.field_name} must be a number, not {str(value).lower()}")
        return value

    @field_validator("link_gbps")
    @classmethod
    def _link_speed(cls, value: int | None) -> int | None:
        """A speed the NICs and switches are built for (ConnectX-6/7/8: 100/200, 400, 800 Gb/s)."""
        if value is not None and value not in LINK_SPEEDS:
            raise ValueError(f"link_gbps must be one of {', '.join(map(str, LINK_SPEEDS))} Gb/s, got {value}")
        return value

    def merged(self, newer: ProfileDraft) -> ProfileDraft:
        """This draft updated with every field the newer one sets.

        When the newer draft changes the size of the cluster, the size fields of this
        draft that it does not restate are dropped, so "what about 256 GPUs?" does not
        clash with a node count from an earlier turn. A new server shape alone ("8 per
        node") keeps the total the customer gave and drops only the node count.
        """
        updates = newer.model_dump(exclude_none=True)
        base = self.model_dump(exclude_none=True)
        size_fields = {"gpu_count", "node_count", "gpus_per_node"}
        if updates.keys() & size_fields == {"gpus_per_node"}:
            if "gpu_count" in base:
                base.pop("node_count", None)
        elif size_fields & updates.keys():
            restates_total = {"gpu_count", "node_count"} <= updates.keys()
            for name in size_fields - updates.keys():
                # the server shape (GPUs per node) survives a new total or node count
                if name != "gpus_per_node" or restates_total:
                    base.pop(name, None)
        return ProfileDraft.model_validate({**base, **updates})

    def scaled(self, factor: float) -> ProfileDraft:
        """This draft's cluster `factor` times as large in whole servers, the server shape
        kept: "double it" on 16 nodes of 8 GPUs is 32 nodes, 256 GPUs; never below one
        server. A draft with no size stays as it is; past the largest cluster this raises
        pydantic's ValidationError."""
        values = self.model_dump(exclude_none=True)
        per_node = self.gpus_per_node
        if self.node_count is None and self.gpu_count is not None and per_node and self.gpu_count % per_node == 0:
            nodes: int | None = self.gpu_count // per_node
        else:
            nodes = self.node_count
        if nodes is not None:
            values["node_count"] = max(1, round(nodes * factor))
            values.pop("gpu_count", None)
            if per_node:
                values["gpu_count"] = values["node_count"] * per_node
        elif self.gpu_count is not None:
            values["gpu_count"] = max(1, round(self.gpu_count * factor))
        return ProfileDraft.model_validate(values)

    def missing(self) -> list[str]:
        """Fields still needed before the cluster can be sized."""
        needed = []
        if self.workload is None:
            needed.append("workload")
        if self.gpu_count is None and self.node_count is None:
            needed.append("gpu_count")
        return needed


class FloorSettings(BaseModel):
    """The hall a design is cabled in (the `floor` object of a profile; CLI --servers-per-rack,
    --rack-kw, --racks-per-row). Unset fields take the platform's reference-architecture
    figures; rules/physical/floor.py states every assumption of the floor model."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    servers_per_rack: int | None = Field(
        default=None, ge=1, le=64, description="Servers per compute rack (NVL72: always one system).", examples=[4]
    )
    rack_kw: float | None = Field(
        default=None, gt=0, le=500, description="Power a compute rack can take, kW.", examples=[45.0]
    )
    racks_per_row: int | None = Field(
        default=None,
        ge=2,
        le=200,
        description="Racks in a row, its leaf network rack included (default: two scalable units and their "
        "leaf rack where that is at most 25 racks, else one).",
        examples=[17],
    )


class WorkloadProfile(ProfileDraft):
    """A workload complete enough to size: the input of the rules engine.

    Either `gpu_count` or `node_count` must be given. What follows from the numbers alone
    is resolved here: with two of gpu_count, node_count and gpus_per_node the third is
    derived, and when all three are given they must agree. With only a GPU or node count
    and no GPU named, a server holds 8 GPUs. When a GPU is named, its server's GPUs per
    node (8 for DGX/HGX, 72 for an NVL72 rack) come from the hardware catalogue, which the
    contract does not read: `rules.servers.resolve` fills them in and checks the server
    (the engine resolves every profile it is given).

    The training job's plan (tp, pp, message_gb, moe, active_params_b, tokens_per_step)
    is optional: the traffic model chooses defaults and says which.
    """

    workload: Workload = Field(description=_PROFILE_FIELDS["workload"][0], examples=[_PROFILE_FIELDS["workload"][1]])
    # the rest of the training job's shape, for the traffic model; set through the CLI and
    # the API (the chat's extractor does not read them, so they are not part of a draft)
    message_gb: float | None = _field("message_gb", gt=0, le=100_000)
    active_params_b: float | None = _field("active_params_b", gt=0, le=1_000_000)
    tokens_per_step: int | None = _field("tokens_per_step", ge=1, le=10**10)
    oversubscription: float | None = _field("oversubscription", ge=1, le=64)
    zone_gpus: int | None = _field("zone_gpus", ge=1, le=MAX_GPUS)
    floor: FloorSettings | None = Field(
        default=None,
        description="The hall the design is cabled in: servers per rack, rack power, racks per row. Decides "
        "each link's length and so its medium (copper, multimode, single-mode).",
        examples=[{"servers_per_rack": 4, "racks_per_row": 17}],
    )

    @field_validator("oversubscription", mode="before")
    @classmethod
    def _ratio(cls, value: Any) -> Any:
        """ "7:1" as 7: the ratio as network architects write it."""
        if isinstance(value, str):
            return parse_ratio(value)
        return value

    @property
    def resolved(self) -> bool:
        """True when gpu_count, node_count and gpus_per_node are all known."""
        return None not in (self.gpu_count, self.node_count, self.gpus_per_node)

    if TYPE_CHECKING:
        # For the type checker only (never run): the validator below fills in all three, so
        # code handed a complete profile reads whole numbers; the input may leave two out.
        gpu_count: int = 0
        node_count: int = 0
        gpus_per_node: int = 0

    @model_validator(mode="after")
    def _resolve_size(self) -> WorkloadProfile:
        if self.gpu_count is None and self.node_count is None:
            raise ValueError("gpu_count: give the number of GPUs (1 to 1,000,000) or node_count")
        gpn = self.gpus_per_node
        if gpn is None and (self.gpu_count is None or self.node_count is None):
            if self.gpu_model is not None:
                return self  # GPUs per node come from the named server: rules.servers.resolve
            gpn = UNNAMED_GPUS_PER_NODE if self.gpu_count is None else min(UNNAMED_GPUS_PER_NODE, self.gpu_count)
            self.gpus_per_node = gpn
        if self.gpu_count is None:
            assert gpn is not None and self.node_count is not None
            self.gpu_count = self.node_count * gpn
            if self.gpu_count > MAX_GPUS:
                raise ValueError(
                    f"gpu_count: node_count x gpus_per_node = {self.gpu_count:,} GPUs, over the limit of {MAX_GPUS:,}"
                )
        elif self.node_count is None:
            assert gpn is not None
            self.node_count = math.ceil(self.gpu_count / gpn)
        elif gpn is None:
            if self.gpu_count % self.node_count:
                raise ValueError(
                    f"gpu_count: {self.gpu_count} GPUs do not split evenly over "
                    f"{self.node_count} nodes; give gpus_per_node or a multiple of node_count"
                )
            gpn = self.gpu_count // self.node_count
            if gpn > MAX_GPUS_PER_NODE:
                raise ValueError(
                    f"gpus_per_node: {self.gpu_count} GPUs on {self.node_count} nodes is "
                    f"{gpn} per node; the allowed range is 1 to {MAX_GPUS_PER_NODE}"
                )
            self.gpus_per_node = gpn
        elif not (self.node_count - 1) * gpn < self.gpu_count <= self.node_count * gpn:
            raise ValueError(
                f"gpu_count: {self.gpu_count} is not node_count x gpus_per_node "
                f"({self.node_count} x {gpn} = {self.node_count * gpn}; only the last server "
                "may be partly filled); fix one of the three"
            )
        return self

    @model_validator(mode="after")
    def _check_parallelism(self) -> WorkloadProfile:
        """A stated plan must fit the cluster and the model; says which value to change."""
        tp, pp, gpus = self.tp or 1, self.pp or 1, self.gpu_count or 1
        if tp * pp > gpus:
            raise ValueError(
                f"tp: tp x pp = {tp} x {pp} = {tp * pp} GPUs per model replica, more than the cluster's {gpus:,}; "
                "lower tp or pp"
            )
        if self.active_params_b and self.model_params_b and self.active_params_b > self.model_params_b:
            raise ValueError(
                f"active_params_b: {self.active_params_b:g}B active is more than the model's "
                f"{self.model_params_b:g}B parameters"
            )
        return self


# ------------------------------------------------------------------------ recommendation


class Fabric(_Model):
    technology: Technology = Field(description="The compute fabric.", examples=["infiniband_ndr"])
    name: str = Field(description="Human name of the fabric.", examples=["InfiniBand NDR (400 Gb/s)"])
    link_gbps: int = Field(description="Speed of each compute link in Gb/s.", examples=[400])
    switch_model: str | None = Field(
        default=None, description="Switch the fabric is sized with.", examples=["NVIDIA Quantum-2 QM9700"]
    )
    switch_radix: int | None = Field(default=None, description="Ports per switch at link_gbps.", examples=[64])
    nic_model: str | None = Field(
        default=None, description="Server NIC for the compute links.", examples=["ConnectX-7"]
    )
    latency_us: str = Field(description="Typical port-to-port latency.", examples=["<1"])


class CableTier(_Model):
    tier: Literal["node-leaf", "leaf-spine", "spine-core", "group-global"] = Field(
        description="Which two layers the cables join.", examples=["leaf-spine"]
    )
    count: int = Field(ge=0, description="Number of cables in this tier.", examples=[256])
    gbps: int = Field(description="Speed of each cable in Gb/s.", examples=[400])


class Topology(_Model):
    kind: TopologyKind = Field(description="Topology family.", examples=["rail_optimized"])
    tiers: int = Field(ge=0, le=3, description="Switch tiers (0 for a single server).", examples=[2])
    endpoints: int = Field(ge=0, description="Ports attached to the fabric at the edge.", examples=[1016])
    radix: int | None = Field(default=None, description="Switch radix used for sizing.", examples=[64])
    rails: int = Field(default=1, ge=1, description="Rails (1 unless rail-optimized).", examples=[8])
    planes: int = Field(
        default=1,
        ge=1,
        le=8,
        description="Identical, disjoint fabrics every GPU joins (2 in NVIDIA's Spectrum-X twin-plane design); "
        "switch, endpoint and cable counts are for all planes together.",
        examples=[1],
    )
    oversubscription: float = Field(default=1.0, ge=1.0, description="Leaf down:up ratio.", examples=[1.0])
    zones: int | None = Field(
        default=None,
        ge=2,
        description="AI zones: groups of leaves and spines, non-blocking inside, joined by the core tier "
        "(null when the fabric is not zoned).",
        examples=[8],
    )
    zone_leaves: int | None = Field(
        default=None, ge=1, description="Leaf switches per AI zone (the last zone may hold fewer).", examples=[48]
    )
    zone_oversubscription: float = Field(
        default=1.0,
        ge=1.0,
        description="Down:up ratio of the zone spines (N of N:1 above the zones); 1 when non-blocking.",
        examples=[7.0],
    )
    leaf_switches: int = Field(ge=0, description="Leaf (edge) switches.", examples=[32])
    spine_switches: int = Field(ge=0, description="Spine switches.", examples=[16])
    core_switches: int = Field(ge=0, description="Core (third tier) switches.", examples=[0])
    spine_switch: str | None = Field(
        default=None,
        description="Model of the spine and core switches where it is not the leaves' (an NDR fabric with "
        "Quantum-2 leaves under Quantum-X800 spines); null when every tier is the same switch.",
        examples=[None],
    )
    spine_radix: int | None = Field(
        default=None,
        description="Ports of each spine and core switch at the link speed, where they differ from the leaves'.",
        examples=[None],
    )
    scalable_units: int | None = Field(
        default=None, description="DGX SuperPOD scalable units, when rail-optimized.", examples=[4]
    )
    cables: list[CableTier] = Field(
        default_factory=list,
        description="Cables per tier.",
        examples=[[{"tier": "node-leaf", "count": 128, "gbps": 400}]],
    )
    bisection_gbps: float = Field(ge=0, description="Bisection bandwidth in Gb/s.", examples=[203200])
    notes: list[str] = Field(
        default_factory=list,
        description="How the counts were reached.",
        examples=[["16 nodes x 8 rails: one leaf per rail, non-blocking."]],
    )

    @property
    def total_switches(self) -> int:
        return self.leaf_switches + self.spine_switches + self.core_switches

    @property
    def total_cables(self) -> int:
        return sum(c.count for c in self.cables)


class Port(_Model):
    role: PortRole = Field(description="What the port carries.", examples=["compute"])
    count: int = Field(ge=0, description="Ports of this role per server.", examples=[8])
    gbps: int = Field(description="Speed of each port in Gb/s.", examples=[400])
    note: str = Field(default="", description="Why this many.", examples=["one per GPU"])


NetworkFabric = Literal["compute", "storage", "in_band", "out_of_band"]
BomCategory = Literal["switch", "nic", "transceiver", "cable", "fibre", "software", "spare"]


class BomLine(_Model):
    """One line of the bill of materials: a part, how many, and its dated, sourced price."""

    fabric: NetworkFabric = Field(description="The network the part belongs to.", examples=["compute"])
    category: BomCategory = Field(description="What kind of part it is.", examples=["transceiver"])
    part_number: str = Field(description="Vendor part number.", examples=["MMA4Z00-NS"])
    description: str = Field(
        description="What the part is and where it goes.",
        examples=["LinkX 800G twin-port OSFP 2x400G SR8, finned top (switch cage), 2 links"],
    )
    quantity: int = Field(ge=0, description="How many.", examples=[64])
    unit_usd_low: float = Field(ge=0, description="Unit price, low end (USD).", examples=[330])
    unit_usd_high: float = Field(ge=0, description="Unit price, high end (USD).", examples=[750])
    included: bool = Field(
        default=False,
        description="Shipped with the servers (their NICs): listed, not bought, priced at $0.",
        examples=[False],
    )
    reused: bool = Field(
        default=False,
        description="Already on site (the customer's existing Ethernet): listed, not bought, priced at $0.",
        examples=[False],
    )
    watts: float | None = Field(default=None, description="Power per unit (W), where it applies.", examples=[15])
    rack_units: float | None = Field(default=None, description="Rack units per unit, for switches.", examples=[1])
    price_date: str = Field(description="When the price was published (YYYY-MM).", examples=["2024-05"])
    source: str = Field(description="Where the price comes from.", examples=["AscentOptics OSFP guide"])
    note: str = Field(default="", description="Why this many.", examples=["128 node-leaf links, 2 per module"])

    @property
    def usd_low(self) -> float:
        return self.quantity * self.unit_usd_low

    @property
    def usd_high(self) -> float:
        return self.quantity * self.unit_usd_high


class CostPart(_Model):
    """The cost of one slice of the network (a fabric or a category), with its power and space."""

    name: str = Field(description="The fabric or category.", examples=["compute"])
    usd_low: int = Field(description="Low end, USD.", examples=[272_000])
    usd_high: int = Field(description="High end, USD.", examples=[432_000])
    watts: int = Field(default=0, description="Power of its parts (W).", examples=[6_500])
    rack_units: int = Field(default=0, description="Rack units of its switches.", examples=[6])


class Cost(_Model):
    network_usd_low: int = Field(
        description="Low end of the network cost: the bill of materials summed (every fabric).", examples=[1_600_000]
    )
    network_usd_high: int = Field(description="High end of the network cost.", examples=[3_200_000])
    basis: str = Field(
        description="How the range was reached and from what.",
        examples=["Sum of the bill of materials at the price book of 2024-08 (low: street, high: list)."],
    )
    budget_share_low: float | None = Field(
        default=None, description="Network cost as a share of budget, low end.", examples=[0.04]
    )
    budget_share_high: float | None = Field(
        default=None, description="Network cost as a share of budget, high end.", examples=[0.08]
    )
    per_gpu_usd_low: int | None = Field(default=None, description="Network cost per GPU, low end.", examples=[2_100])
    per_gpu_usd_high: int | None = Field(default=None, description="Network cost per GPU, high end.", examples=[3_400])
    by_fabric: list[CostPart] = Field(default_factory=list, description="Cost, power and space per network.")
    by_category: list[CostPart] = Field(default_factory=list, description="Cost per kind of part.")
    watts: int = Field(default=0, description="Power of the network's parts (W).", examples=[9_800])
    rack_units: int = Field(default=0, description="Rack units of the network's switches.", examples=[12])
    price_book_date: str | None = Field(default=None, description="Date of the price book used.", examples=["2024-08"])
    assumptions: list[str] = Field(
        default_factory=list,
        description="What the bill of materials assumes (reach, spares, what is included).",
        examples=[["Servers sit four to a rack; switches in network racks at the end of the row."]],
    )

    def fabric(self, name: str) -> CostPart | None:
        """The cost of one network (compute, storage, in_band, out_of_band), if it has one."""
        return next((part for part in self.by_fabric if part.name == name), None)


class ParallelismPlan(_Model):
    """How the model is split over the GPUs, and the memory arithmetic behind it."""

    tp: int = Field(ge=1, description="Tensor-parallel degree (inside the NVLink domain).", examples=[8])
    pp: int = Field(ge=1, description="Pipeline-parallel stages.", examples=[16])
    dp: int = Field(ge=1, description="Data-parallel replicas: the ranks of the gradient all-reduce.", examples=[128])
    tp_source: Literal["stated", "memory"] = Field(description="Whether tp was given or chosen.", examples=["memory"])
    pp_source: Literal["stated", "memory"] = Field(description="Whether pp was given or chosen.", examples=["memory"])
    params_b: float = Field(description="Model parameters, billions.", examples=[405])
    gpu_memory_gb: float = Field(description="Memory of one GPU, GB.", examples=[80])
    state_bytes_per_param: int = Field(
        description="Weights, gradients and optimizer state per parameter.", examples=[16]
    )
    state_gb_per_gpu: float = Field(description="Model state each GPU holds under the plan, GB.", examples=[50.6])
    memory_budget_gb: float = Field(
        description="Share of GPU memory the plan lets model state take, GB.", examples=[56]
    )
    fits: bool = Field(description="Whether the model state fits that budget.", examples=[True])
    gradient_gb_per_gpu: float = Field(
        description="Data-parallel gradient each GPU reduces per step, GB.", examples=[6.3]
    )
    dp_ranks_per_domain: int = Field(
        ge=1, description="Data-parallel ranks that share one NVLink domain (reduced there first).", examples=[1]
    )
    nvlink_domain_gpus: int = Field(ge=1, description="GPUs in one NVLink domain.", examples=[8])
    idle_gpus: int = Field(ge=0, default=0, description="GPUs left over by tp x pp x dp.", examples=[0])
    model: str = Field(
        default="", description="The published model the size was matched to, if any.", examples=["Llama 3 405B"]
    )
    layers: int | None = Field(
        default=None, ge=1, description="Transformer layers: stages never exceed them.", examples=[126]
    )
    layers_estimated: bool = Field(
        default=False, description="Layers estimated from the size (no published shape).", examples=[False]
    )
    ep: int = Field(
        default=1, ge=1, description="Expert-parallel degree (mixture of experts), 1 when dense.", examples=[1]
    )
    sharded_optimizer: bool = Field(
        default=False,
        description="Optimizer state sharded over the data-parallel ranks (ZeRO stage 1).",
        examples=[False],
    )
    arithmetic: list[str] = Field(
        default_factory=list,
        description="The plan's memory arithmetic, in sentences.",
        examples=[["405B x 16 bytes = 6,480 GB of model state; / (TP 8 x PP 16) = 50.6 GB per GPU."]],
    )


class StepEstimate(_Model):
    """One training step on one fabric: compute, communication, and what is left exposed."""

    compute_ms: float = Field(description="GPU compute per step at the assumed utilisation, ms.", examples=[1520.0])
    allreduce_ms: float = Field(description="The data-parallel gradient all-reduce, ms.", examples=[267.0])
    alltoall_ms: float = Field(default=0.0, description="Mixture-of-experts all-to-all per step, ms.", examples=[0.0])
    hidden_ms: float = Field(description="Communication hidden behind backward compute, ms.", examples=[250.0])
    exposed_ms: float = Field(description="Communication the step waits for, ms.", examples=[17.0])
    step_ms: float = Field(description="Compute plus exposed communication, ms.", examples=[1537.0])
    exposed_share: float = Field(ge=0, le=1, description="Exposed communication / step time.", examples=[0.011])
    bound_by: str = Field(description="What bounds the step.", examples=["GPU compute"])


class Performance(_Model):
    allreduce_ms: float | None = Field(description="One gradient all-reduce, ms; null for inference.", examples=[310.5])
    message_bytes: int | None = Field(default=None, description="All-reduce message size.", examples=[140_000_000_000])
    relative_training_throughput: float = Field(
        description="Training throughput relative to InfiniBand (1.0), from the step-time model.", examples=[1.0]
    )
    plan: ParallelismPlan | None = Field(default=None, description="The parallelism plan the traffic follows.")
    step: StepEstimate | None = Field(default=None, description="The training step on this fabric.")
    in_network_allreduce_ms: float | None = Field(
        default=None,
        description="The all-reduce with in-network reduction (SHARP) where the switches have it, ms.",
        examples=[140.0],
    )
    assumptions: list[str] = Field(
        default_factory=list,
        description="What the estimate assumes.",
        examples=[["Ring all-reduce across nodes at the achievable bus bandwidth of one NIC per GPU."]],
    )


class RoceSetting(_Model):
    setting: str = Field(description="Mechanism to configure.", examples=["PFC"])
    value: str = Field(description="What to set.", examples=["enable on the RDMA priority (3) on every switch and NIC"])
    why: str = Field(
        description="Why it is needed.", examples=["RoCE needs a lossless fabric; PFC stops drops when buffers fill."]
    )
    source: str = Field(
        description="Where the guidance comes from.", examples=["Seed guide, 'Lossless Ethernet configuration'"]
    )


class FabricSetting(_Model):
    """One thing to configure, with its value and where the value comes from."""

    area: Literal["switch", "nic", "nccl", "rccl", "subnet_manager", "validation"] = Field(
        description="Where it is set: rccl for the collective library of AMD GPUs, nccl for NVIDIA's.",
        examples=["switch"],
    )
    setting: str = Field(description="Mechanism or variable.", examples=["ECN marking (RoCE class)"])
    value: str = Field(description="What to set.", examples=["min 150 KB, max 1,500 KB on traffic class 3"])
    why: str = Field(description="Why.", examples=["Marks before PFC pauses so DCQCN slows senders first."])
    source: str = Field(description="Vendor document the value comes from.", examples=["NVIDIA Onyx RoCE commands"])


class FabricConfiguration(_Model):
    """What the recommended fabric needs configured, and how to check it after cabling."""

    fabric: Literal["roce", "infiniband", "ethernet"] = Field(description="Fabric kind.", examples=["roce"])
    switch_family: str = Field(description="The switch family the values are for.", examples=["NVIDIA Spectrum"])
    settings: list[FabricSetting] = Field(default_factory=list, description="Switch, NIC and NCCL settings.")
    validation: list[FabricSetting] = Field(
        default_factory=list,
        description="Expected results of nccl-tests (rccl-tests on AMD GPUs) and perftest on the built fabric.",
    )


class Alternative(_Model):
    technology: Technology = Field(description="A fabric that was considered.", examples=["rocev2"])
    name: str = Field(description="Human name.", examples=["RoCEv2 over 400GbE"])
    link_gbps: int = Field(description="Link speed used for the estimate.", examples=[400])
    network_usd_low: int = Field(description="Low end of its network cost.", examples=[640_000])
    network_usd_high: int = Field(description="High end of its network cost.", examples=[1_200_000])
    relative_training_throughput: float = Field(
        description="Expected training throughput relative to InfiniBand.", examples=[0.85]
    )
    relative_cost: float | None = Field(
        default=None,
        description="Its network cost over the recommended one's (range midpoints), from the two bills of materials.",
        examples=[0.4],
    )
    allreduce_ms: float | None = Field(
        default=None, description="One gradient all-reduce on this fabric, ms.", examples=[365.2]
    )
    step: StepEstimate | None = Field(default=None, description="The training step on this fabric.")
    latency_us: str = Field(description="Typical latency.", examples=["1-5"])
    operational_complexity: Literal["low", "medium", "high"] = Field(
        description="How hard it is to run.", examples=["high"]
    )
    trade_off: str = Field(
        description="Why it was or was not chosen.",
        examples=["Cheaper; 10-20 % slower training; lossless Ethernet needs PFC, ECN and DCQCN tuned."],
    )
    oversubscription: float = Field(
        default=1.0,
        ge=1.0,
        description="N of N:1 above its AI zones: the recommended fabric built in zones (1 for a fabric family).",
        examples=[1.0],
    )
    zone_gpus: int | None = Field(
        default=None, ge=1, description="GPUs per AI zone, when it is built in zones.", examples=[3072]
    )


class Reason(_Model):
    rule_id: str = Field(description="The rule that fired.", examples=["training-16plus-infiniband"])
    statement: str = Field(
        description="What the rule concluded, for this workload.",
        examples=["Training on 128 GPUs: InfiniBand HDR or NDR is strongly recommended."],
    )
    source: str = Field(
        description="Where the rule comes from.", examples=["Seed guide, 'Recommendations by workload'"]
    )
    overridden_by: str | None = Field(
        default=None,
        description=(
            "Always null in new recommendations (kept so stored ones still load): a rule whose decision lost "
            "is not a reason but is listed in `considered`."
        ),
        examples=[None],
    )


class Considered(_Model):
    """A rule that fired but whose decision lost to a higher-priority rule: an option the
    advisor weighed and did not take. Its own statement would describe a design that was
    not built, so it is never in `explanation`; this says what it proposed and why not."""

    rule_id: str = Field(description="The rule whose decision was not taken.", examples=["ib-hdr-matches-nic"])
    option: str = Field(description="What the rule proposed, in words.", examples=["HDR InfiniBand (200 Gb/s)"])
    chosen: str = Field(description="What was chosen instead, in words.", examples=["NDR InfiniBand (400 Gb/s)"])
    chosen_by: str = Field(description="The rule whose decision was taken.", examples=["ib-ndr-matches-nic"])
    why_not: str = Field(
        description="Why the option was not taken: the winning rule's reason for this design.",
        examples=[
            "ib-ndr-matches-nic takes precedence: The DGX H100 NICs run at 400 Gb/s, so NDR (400 Gb/s per port, "
            "Quantum-2) uses their full speed; an HDR fabric would halve each GPU's network bandwidth."
        ],
    )
    source: str = Field(description="Where the losing rule comes from.", examples=['Seed guide: "HDR InfiniBand"'])


class DesignVersions(_Model):
    """The data a design was made from, stored with it so a quote (or a complaint about
    one) can be traced to the exact rulebook, hardware catalogue and price book."""

    rulebook: str = Field(description="Version of the rulebook (content hash).", examples=["rb-3f9a0c12"])
    catalogue: str = Field(description="Version of the hardware catalogue (content hash).", examples=["hw-9c1d2e3f"])
    price_book: str = Field(description="The price book's date and content hash.", examples=["2026-12 (pb-a1b2c3d4)"])


class Racks(_Model):
    """Where the cluster stands: racks of servers and of network switches, and the
    network's power, worked out from the price book's rack assumptions."""

    servers: int = Field(ge=0, description="GPU servers (or rack-scale systems).", examples=[16])
    servers_per_rack: int = Field(ge=1, description="Servers per rack assumed.", examples=[4])
    server_racks: int = Field(ge=0, description="Racks of GPU servers.", examples=[4])
    switch_rack_units: int = Field(ge=0, description="Rack units of every network switch.", examples=[12])
    network_racks: int = Field(ge=0, description="Network racks for the switches.", examples=[1])
    network_watts: int = Field(ge=0, description="Power of the network's parts (W).", examples=[9_800])
    basis: str = Field(description="The assumptions and their source.", examples=["4 servers per rack (...)"])


class SupportLine(_Model):
    """A support or licence item the network needs beyond its parts, and how the quote
    treats it: priced, or excluded with the reason."""

    item: str = Field(description="What it is.", examples=["UFM Enterprise licence"])
    treatment: Literal["priced", "excluded"] = Field(
        description="Priced in the quote or excluded.", examples=["excluded"]
    )
    why: str = Field(
        description="Why it is excluded, or what the price covers.",
        examples=["Licensed per managed device and term by NVIDIA or a partner; no public price."],
    )
    source: str = Field(description="The document behind it.", examples=["NVIDIA UFM Enterprise user manual"])


class AlternativeSwitches(_Model):
    """The compute switches an alternative fabric would need for the same cluster, so a
    quote can set the alternatives side by side."""

    technology: Technology = Field(description="The alternative fabric.", examples=["rocev2"])
    switch_model: str | None = Field(default=None, description="Its switch.", examples=["NVIDIA Spectrum-4 SN5600"])
    leaf_switches: int = Field(ge=0, description="Leaf switches.", examples=[8])
    spine_switches: int = Field(ge=0, description="Spine switches.", examples=[4])
    core_switches: int = Field(ge=0, description="Core switches.", examples=[0])


class Quote(_Model):
    """The terms a design is quoted under: who it is for, when it was issued and how long
    it holds, and the customer's own prices and discount where given."""

    prepared_for: str | None = Field(default=None, description="Who the quote is for.", examples=["Acme AI Lab"])
    issued: str = Field(description="Date the design was first quoted (YYYY-MM-DD).", examples=["2026-12-04"])
    valid_until: str = Field(description="Last day the quote holds (YYYY-MM-DD).", examples=["2027-01-03"])
    customer_priced: list[str] = Field(
        default_factory=list,
        description="Part numbers priced from the customer's price list instead of the price book.",
        examples=[["MQM9700-NS2F"]],
    )
    discount_pct: float = Field(default=0, ge=0, lt=100, description="Discount on the network, %.", examples=[12.5])
    discount_usd_low: int = Field(default=0, description="The discount on the low end, USD.", examples=[45_000])
    discount_usd_high: int = Field(default=0, description="The discount on the high end, USD.", examples=[77_000])
    net_usd_low: int = Field(description="Network cost after the discount, low end.", examples=[336_000])
    net_usd_high: int = Field(description="Network cost after the discount, high end.", examples=[539_000])
    support: list[SupportLine] = Field(default_factory=list, description="Support and licence lines.")
    alternative_switches: list[AlternativeSwitches] = Field(
        default_factory=list, description="The compute switches of each alternative, for the side-by-side table."
    )


class GrowthStep(_Model):
    """What going from one size of a design to a larger one adds, with the same fabric and
    switches: the switches, cables and parts added, their cost, and what must be re-cabled
    (empty when the step only adds)."""

    gpus: int = Field(ge=1, description="GPUs after the step.", examples=[1280])
    gpus_added: int = Field(ge=0, description="GPUs the step adds.", examples=[256])
    servers_added: int = Field(ge=0, description="GPU servers (or NVL72 racks) the step adds.", examples=[32])
    leaf_switches_added: int = Field(description="Leaf switches added.", examples=[8])
    spine_switches_added: int = Field(description="Spine switches added.", examples=[4])
    core_switches_added: int = Field(description="Core switches added.", examples=[0])
    switches_added: int = Field(description="Compute-fabric switches added, every tier.", examples=[12])
    cables_added: int = Field(description="Compute-fabric cables added, every tier.", examples=[512])
    cost_added_usd_low: int = Field(description="Price of the added parts, low end (USD).", examples=[610_000])
    cost_added_usd_high: int = Field(description="Price of the added parts, high end (USD).", examples=[1_050_000])
    added: list[BomLine] = Field(
        default_factory=list,
        description="The bill-of-materials lines the step adds, each with the quantity added (every network).",
    )
    recabling: list[str] = Field(
        default_factory=list,
        description="What must be re-cabled or replaced to take the step; empty when it only adds.",
        examples=[["A third tier: every leaf-spine link is re-cabled into pods and 64 core switches are added."]],
    )
    fewer: list[str] = Field(
        default_factory=list,
        description=(
            "Parts the larger design, sized afresh, uses fewer of than the installed one (another model of a "
            "management switch, say): nothing installed is removed, they stay in place or become spares."
        ),
        examples=[["2 x MSN5400-HS2FC (in_band)"]],
    )


class Growth(_Model):
    """How the design grows: what its next scalable unit adds, where it needs another tier,
    and how far it grows by adding alone. Every figure comes from sizing the larger cluster
    with the same functions the design was sized with."""

    unit: str = Field(
        description="The design's growth unit, in words.",
        examples=["one scalable unit: 32 servers (256 GPUs), one leaf per rail"],
    )
    unit_gpus: int = Field(ge=1, description="GPUs in one growth unit.", examples=[256])
    tiers: int = Field(ge=0, le=3, description="Switch tiers of the design as it is.", examples=[2])
    next_step: GrowthStep | None = Field(
        default=None, description="The next unit: what it adds (null when the design is at the largest size)."
    )
    tier_limit_gpus: int | None = Field(
        default=None,
        description="Most GPUs this fabric (same switch, same topology) holds in its current number of tiers.",
        examples=[2048],
    )
    next_tier_gpus: int | None = Field(
        default=None,
        description=(
            "The GPU count at which the fabric must change: a third tier for a two-tier fabric, another switch "
            "or topology past three tiers (null when none is reached up to the largest cluster sized)."
        ),
        examples=[2304],
    )
    grows_without_recabling_to_gpus: int = Field(
        ge=0,
        description="Largest size the fabric reaches by adding servers, switches and cables only, nothing re-cabled.",
        examples=[1024],
    )
    notes: list[str] = Field(
        default_factory=list,
        description="How the figures were found, with sources.",
        examples=[["Up to 2,048 GPUs the fabric stays 2 tier(s) of NVIDIA Quantum-2 QM9700; ..."]],
    )


class Expansion(_Model):
    """A stored design grown to more GPUs: its switches and cabling kept, only what is
    added listed; the larger design stored under its own id."""

    from_id: str = Field(description="The stored design that was expanded.", examples=["r_3f9a0c12"])
    id: str = Field(description="The id the expanded design is stored under.", examples=["r_9b1e22d0"])
    gpus_before: int = Field(ge=1, description="GPUs of the stored design.", examples=[1024])
    step: GrowthStep = Field(description="What the expansion adds, and what must be re-cabled.")
    keeps_cabling: bool = Field(
        description="True when the expansion only adds: every existing switch and cable stays where it is.",
        examples=[True],
    )
    notes: list[str] = Field(
        default_factory=list,
        description="How the expansion was designed.",
        examples=[["The larger design is sized with the same rules and switches, on the stored design's fabric."]],
    )


class Recommendation(_Model):
    id: str | None = Field(default=None, description="Shareable id once stored.", examples=["r_3f9a0c12"])
    profile: WorkloadProfile
    fabric: Fabric
    topology: Topology
    ports_per_server: list[Port]
    node_word: str = Field(
        default="server",
        description="What one node of the profile is: a server, or an NVL72 rack of compute trays.",
        examples=["server"],
    )
    cost: Cost
    performance: Performance
    roce_configuration: list[RoceSetting] = Field(default_factory=list, description="Empty unless RoCE.")
    fabric_configuration: FabricConfiguration | None = Field(
        default=None, description="Settings and validation targets for the fabric; null for NVLink only."
    )
    alternatives: list[Alternative] = Field(default_factory=list)
    bill_of_materials: list[BomLine] = Field(
        default_factory=list,
        description="Every part of the network (compute, storage, in-band and out-of-band), with its price.",
    )
    explanation: list[Reason] = Field(
        description="Every fired rule whose conclusion holds for this design, in order: statements about the design."
    )
    considered: list[Considered] = Field(
        default_factory=list,
        description=(
            "Rules that fired but whose decision lost to a higher-priority rule: options weighed and not taken, "
            "each with why not. Never part of `explanation`."
        ),
    )
    warnings: list[str] = Field(
        default_factory=list,
        description="Things the customer should check.",
        examples=[["DGX A100 carries ConnectX-6 (HDR, 200 Gb/s): NDR links would run at 200G."]],
    )
    versions: DesignVersions | None = Field(
        default=None, description="The rulebook, catalogue and price book the design used (set when stored)."
    )
    quote: Quote | None = Field(default=None, description="The quote's terms (set when stored).")
    racks: Racks | None = Field(default=None, description="Racks and network power (set when stored).")
    growth: Growth | None = Field(
        default=None, description="What the next scalable unit adds and where the next tier boundary is."
    )
