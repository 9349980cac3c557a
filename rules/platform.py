"""The platform a design is built on, resolved once from the catalogue.

Every later stage (facts, traffic, sizing, the bill of materials, the renderers) needs
the same few things about the hardware: which GPU, how much memory and compute it has,
what joins the GPUs inside a server or rack (NVLink, AMD Infinity Fabric, or only PCIe),
which collective library drives them, and which ports each network role gets. Looking
these up again from the GPU's name in each stage let two stages disagree (the review
found a design whose memory came from two files with two values). So the profile is
resolved here, once, into a `Platform`, and the stages read that record.

    >>> p = platform_for("GB200")
    >>> (p.server, p.scale_up.kind, p.scale_up.gpus, p.rack_scale, p.collective_library)
    ('GB200 NVL72', 'nvlink', 72, True, 'NCCL')
    >>> p.network("compute").gbps
    400
    >>> mi = platform_for("MI300X")
    >>> (mi.scale_up.kind, mi.collective_library, mi.collective_tests)
    ('infinity_fabric', 'RCCL', 'rccl-tests')
    >>> platform_for("L40S").scale_up.kind
    'pcie'
"""

from __future__ import annotations

import functools
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from knowledge import catalogue, performance

ASSUMED_GPU = "H100"
#: Inference-traffic ports of a host whose record gives none (seed guide: "2x 100GbE or
#: 400GbE for inference traffic"), on every host: each compute tray of an NVL72 rack.
INFERENCE_PORTS_PER_HOST = 2  # the advisor's default server when the GPU is not named or not known

ScaleUpKind = Literal["nvlink", "infinity_fabric", "pcie"]
NetworkRole = Literal["compute", "storage", "in_band", "out_of_band", "inference"]

# What each scale-up link is called in a sentence, and the library that drives it.
_SCALE_UP_WORDS: dict[str, str] = {"nvlink": "NVLink", "infinity_fabric": "AMD Infinity Fabric", "pcie": "PCIe"}
_AMD_GPUS = ("MI",)  # AMD Instinct model names start with MI (MI250X, MI300X, MI325X, MI355X)


class ScaleUp(BaseModel):
    """The link inside a server or rack that GPUs reduce over before the network."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: ScaleUpKind = Field(description="NVLink, AMD Infinity Fabric (xGMI), or PCIe only.", examples=["nvlink"])
    name: str = Field(description="The link as a sentence names it.", examples=["NVLink 4 (NVSwitch)"])
    gpus: int = Field(ge=1, description="GPUs in one scale-up domain (72 for an NVL72 rack).", examples=[8])
    busbw_gbytes: float = Field(gt=0, description="Achievable all-reduce bus bandwidth, GB/s.", examples=[480.0])
    nominal_gbytes: float = Field(
        gt=0, description="The link's bandwidth per GPU as its maker states it, GB/s.", examples=[900.0]
    )
    latency_us: float = Field(ge=0, description="Per-step latency the ring model uses, µs.", examples=[2.0])
    source: str = Field(description="Where the bandwidth comes from.")

    @property
    def words(self) -> str:
        """'NVLink', 'AMD Infinity Fabric' or 'PCIe': what a customer reads."""
        return _SCALE_UP_WORDS[self.kind]


class NetworkPorts(BaseModel):
    """The ports one server (or compute tray) gives one network role."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    role: NetworkRole
    ports: int = Field(ge=0)
    gbps: int = Field(ge=0)


class Platform(BaseModel):
    """One system as the advisor sizes it: GPU, scale-up domain, library and ports."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    server: str = Field(description="The catalogue's system.", examples=["DGX H100"])
    gpu_model: str = Field(description="The GPU the system carries.", examples=["H100"])
    vendor: Literal["nvidia", "amd"]
    assumed: bool = Field(description="True when the GPU was not named or not known and an H100 server is assumed.")
    form: Literal["sxm", "pcie"]
    gpus_per_host: int = Field(ge=1, description="GPUs of one host: a server, or an NVL72 compute tray (4).")
    node_gpus: int = Field(ge=1, description="GPUs of one node as sized: the rack for NVL72, else the server.")
    rack_scale: bool = Field(description="An NVL72-style rack whose NVLink domain spans several hosts.")
    gpu_memory_gb: float = Field(gt=0, description="Memory per GPU (from the GPU facts, its one home).")
    bf16_dense_tflops: float = Field(gt=0, description="Peak dense BF16 TFLOPS per GPU.")
    gpu_source: str = Field(default="", description="Where the memory and TFLOPS come from (the GPU's datasheet).")
    scale_up: ScaleUp
    collective_library: Literal["NCCL", "RCCL"]
    compute_nic: str | None = Field(description="The compute (east-west) NIC, or None on systems without one.")
    compute_connector: str = ""
    networks: tuple[NetworkPorts, ...] = Field(description="Ports per host for each network role.")
    frontend: Literal["separate", "converged"] = Field(
        default="separate",
        description="'converged' where the system's RA runs storage and in-band management on one Ethernet fabric.",
    )
    fabric_manager_slot: bool = Field(
        default=False, description="The SuperPOD reference keeps one node slot per SU for UFM (H100 class)."
    )
    sources: tuple[str, ...] = Field(description="The documents the record comes from.")

    @property
    def has_nvlink(self) -> bool:
        return self.scale_up.kind == "nvlink" and self.scale_up.gpus > 1

    @property
    def collective_tests(self) -> str:
        """The benchmark suite of the collective library: nccl-tests or rccl-tests."""
        return "rccl-tests" if self.collective_library == "RCCL" else "nccl-tests"

    @property
    def tp_domain_gpus(self) -> int:
        """GPUs tensor parallelism may span: the NVLink or Infinity Fabric domain; 1 on PCIe,
        where per-layer all-reduces would crawl over the host bus."""
        return 1 if self.scale_up.kind == "pcie" else self.scale_up.gpus

    @property
    def max_nic_gbps(self) -> int:
        """The fastest link a host's NIC carries toward a GPU fabric: its compute NIC, or on
        PCIe inference servers without one, the inference ports (A100 -> 200, L4 -> 100)."""
        compute = self.network("compute")
        return compute.gbps if compute.ports else self.network("inference").gbps

    def serving_ports(self, node_gpus: int) -> int:
        """Inference-traffic ports of one node of `node_gpus` GPUs: every host's ports (the
        record's, else two), so an NVL72 rack of 18 compute trays has 36, every tray cabled."""
        serving = self.network("inference").ports
        per_host = serving if not self.assumed and serving else INFERENCE_PORTS_PER_HOST
        hosts = node_gpus // self.gpus_per_host if not self.assumed and self.rack_scale else 1
        return per_host * max(1, hosts)

    def network(self, role: NetworkRole) -> NetworkPorts:
        return next(n for n in self.networks if n.role == role)


@functools.lru_cache(maxsize=256)
def platform_for(gpu_model: str | None) -> Platform:
    """The platform of a GPU model as people write it ("h100", "GB200 NVL72", "mi300x").

    An unnamed or unknown GPU resolves to the assumed H100 server, marked `assumed`, so a
    design can say what it assumed instead of failing."""
    server = catalogue.server_for(gpu_model)
    assumed = server is None
    if server is None:
        server = catalogue.server_for(ASSUMED_GPU)
        assert server is not None  # the catalogue carries the assumed server
    gpu = performance.gpu(server.gpu_model)
    assert gpu is not None, f"gpus.yaml has no entry for {server.gpu_model}"  # checked by the catalogue tests
    link = catalogue.nvlink(server.gpu_model)
    kind: ScaleUpKind = "nvlink" if link.technology == "nvlink" else "pcie"
    if link.technology == "infinity_fabric":
        kind = "infinity_fabric"
    domain = server.nvlink_domain_gpus if kind != "pcie" else server.gpus
    amd = server.gpu_model.upper().startswith(_AMD_GPUS)
    return Platform(
        server=server.model,
        gpu_model=server.gpu_model,
        vendor="amd" if amd else "nvidia",
        assumed=assumed,
        form=server.form,
        gpus_per_host=server.gpus,
        node_gpus=server.node_gpus,
        rack_scale=server.rack_scale,
        gpu_memory_gb=gpu.memory_gb,
        bf16_dense_tflops=gpu.bf16_dense_tflops,
        gpu_source=gpu.source,
        scale_up=ScaleUp(
            kind=kind,
            name=link.title.split(" (")[0],
            gpus=domain,
            busbw_gbytes=link.achievable_busbw_gbytes,
            nominal_gbytes=link.nominal_gbps / 8,
            latency_us=link.latency_us_model,
            source=link.source,
        ),
        collective_library="RCCL" if amd else "NCCL",
        compute_nic=server.compute_nic,
        compute_connector=server.compute_connector,
        networks=(
            NetworkPorts(role="compute", ports=server.compute_ports, gbps=server.compute_gbps),
            NetworkPorts(role="storage", ports=server.storage_ports, gbps=server.storage_gbps),
            NetworkPorts(role="in_band", ports=server.inband_ports, gbps=server.inband_gbps),
            NetworkPorts(role="out_of_band", ports=server.oob_ports, gbps=server.oob_gbps),
            NetworkPorts(role="inference", ports=server.inference_ports, gbps=server.inference_gbps),
        ),
        frontend=server.frontend,
        fabric_manager_slot=server.fabric_manager_slot or assumed,
        sources=tuple(dict.fromkeys(s for s in (server.source, gpu.source, link.source, server.frontend_source) if s)),
    )
