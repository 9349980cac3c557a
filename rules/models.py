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

from pydantic import BaseModel, ConfigDict, Field, model_validator

MAX_GPUS = 1_000_000
MAX_GPUS_PER_NODE = 72  # GB200/GB300 NVL72: the largest NVLink domain sold as one system


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
        f"GPUs per server, 1 to {MAX_GPUS_PER_NODE}. Defaults to the server's (8 for DGX/HGX), else 8.",
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
)


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


class WorkloadProfile(ProfileDraft):
    """A workload complete enough to size: the input of the rules engine.

    Either `gpu_count` or `node_count` must be given; the others are derived from the
    server's GPUs per node. When all three are given they must agree.
    """

    workload: Workload = Field(description=_PROFILE_FIELDS["workload"][0], examples=[_PROFILE_FIELDS["workload"][1]])

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
        explicit_gpn = self.gpus_per_node is not None
        gpn = self.gpus_per_node or _default_gpus_per_node(self.gpu_model)
        if self.gpu_count is None:
            self.gpus_per_node = gpn
            self.gpu_count = self.node_count * gpn
            if self.gpu_count > MAX_GPUS:
                raise ValueError(
                    f"gpu_count: node_count x gpus_per_node = {self.gpu_count:,} GPUs, over the limit of {MAX_GPUS:,}"
                )
        elif self.node_count is None:
            if not explicit_gpn:
                gpn = min(gpn, self.gpu_count)
            self.gpus_per_node = gpn
            self.node_count = math.ceil(self.gpu_count / gpn)
        else:
            if not explicit_gpn:
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


def _default_gpus_per_node(gpu_model: str | None) -> int:
    """GPUs per server from the hardware catalogue, 8 when the model is unknown."""
    from knowledge.catalogue import default_gpus_per_node

    return default_gpus_per_node(gpu_model) or 8


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
    oversubscription: float = Field(default=1.0, ge=1.0, description="Leaf down:up ratio.", examples=[1.0])
    leaf_switches: int = Field(ge=0, description="Leaf (edge) switches.", examples=[32])
    spine_switches: int = Field(ge=0, description="Spine switches.", examples=[16])
    core_switches: int = Field(ge=0, description="Core (third tier) switches.", examples=[0])
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


class Cost(_Model):
    network_usd_low: int = Field(
        description="Low end of the network cost (switches, NICs, cables).", examples=[1_600_000]
    )
    network_usd_high: int = Field(description="High end of the network cost.", examples=[3_200_000])
    basis: str = Field(
        description="How the range was scaled and from what.",
        examples=["Scaled from the guide's 16-node InfiniBand figure ($200K-$400K) by switch, NIC and cable counts."],
    )
    budget_share_low: float | None = Field(
        default=None, description="Network cost as a share of budget, low end.", examples=[0.04]
    )
    budget_share_high: float | None = Field(
        default=None, description="Network cost as a share of budget, high end.", examples=[0.08]
    )


class Performance(_Model):
    allreduce_ms: float | None = Field(description="One gradient all-reduce, ms; null for inference.", examples=[310.5])
    message_bytes: int | None = Field(default=None, description="All-reduce message size.", examples=[140_000_000_000])
    relative_training_throughput: float = Field(
        description="Expected training throughput relative to InfiniBand (1.0).", examples=[1.0]
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


class Alternative(_Model):
    technology: Technology = Field(description="A fabric that was considered.", examples=["rocev2"])
    name: str = Field(description="Human name.", examples=["RoCEv2 over 400GbE"])
    link_gbps: int = Field(description="Link speed used for the estimate.", examples=[400])
    network_usd_low: int = Field(description="Low end of its network cost.", examples=[640_000])
    network_usd_high: int = Field(description="High end of its network cost.", examples=[1_200_000])
    relative_training_throughput: float = Field(
        description="Expected training throughput relative to InfiniBand.", examples=[0.85]
    )
    allreduce_ms: float | None = Field(
        default=None, description="One gradient all-reduce on this fabric, ms.", examples=[365.2]
    )
    latency_us: str = Field(description="Typical latency.", examples=["1-5"])
    operational_complexity: Literal["low", "medium", "high"] = Field(
        description="How hard it is to run.", examples=["high"]
    )
    trade_off: str = Field(
        description="Why it was or was not chosen.",
        examples=["Cheaper; 10-20 % slower training; lossless Ethernet needs PFC, ECN and DCQCN tuned."],
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
        description="The rule whose decision took precedence over this one's, when one did.",
        examples=["ib-over-network-budget"],
    )


class Recommendation(_Model):
    id: str | None = Field(default=None, description="Shareable id once stored.", examples=["r_3f9a0c12"])
    profile: WorkloadProfile
    fabric: Fabric
    topology: Topology
    ports_per_server: list[Port]
    cost: Cost
    performance: Performance
    roce_configuration: list[RoceSetting] = Field(default_factory=list, description="Empty unless RoCE.")
    alternatives: list[Alternative] = Field(default_factory=list)
    explanation: list[Reason] = Field(description="Every fired rule, in order.")
    warnings: list[str] = Field(
        default_factory=list,
        description="Things the customer should check.",
        examples=[["DGX A100 carries ConnectX-6 (HDR, 200 Gb/s): NDR links would run at 200G."]],
    )
