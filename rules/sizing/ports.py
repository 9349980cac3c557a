"""The network ports each GPU server needs, by role.

The rule, from the seed guide ("How many network ports does each GPU server need?"):
training puts one dedicated compute-fabric port on every GPU ("sharing ports between
GPUs creates network bottlenecks during all-reduce operations"), plus storage/data,
in-band management and out-of-band (BMC) ports; inference needs no compute fabric
("inference does not require all-reduce communication"), only ports for inference
traffic and management. Mixed clusters train, so they are wired like training.

Port counts and speeds are inputs: the engine passes the server's facts from the
hardware catalogue. A role left as None takes the seed guide's figure for the
workload (below, each with its source); a role given as (0, gbps) is left out.
"""

from __future__ import annotations

from rules.models import Port, PortRole, Workload

PortSpec = tuple[int, int]
"""(ports per server, Gb/s per port)."""

# Seed guide, "How many network ports does each GPU server need?" (DGX H100 line):
# "2x 10GbE management ports + 2x 100GbE storage/data ports".
TRAINING_STORAGE: PortSpec = (2, 100)
TRAINING_INBAND: PortSpec = (2, 10)
# Seed guide, same answer: "For inference servers with PCIe GPUs: 2x 100GbE or 400GbE
# for inference traffic + 1x 10GbE management".
INFERENCE_TRAFFIC: PortSpec = (2, 100)
INFERENCE_INBAND: PortSpec = (1, 10)
# Out-of-band: one BMC port (NVIDIA DGX H100/B200 user guides: a dedicated BMC RJ45
# port, 1 GbE; NVIDIA DGX SuperPOD RA: "The OOB port is used for BMC access").
OUT_OF_BAND: PortSpec = (1, 1)


def _workload(workload: str | Workload) -> Workload:
    try:
        return Workload(workload)
    except ValueError:
        choices = ", ".join(w.value for w in Workload)
        raise ValueError(f"workload: one of {choices}, got {workload!r}") from None


def _basis(given: PortSpec | None, default: PortSpec, guide: str) -> str:
    """Where a port count comes from: the seed guide's figure, or the server's own."""
    if given is None or tuple(given) == default:
        return f"(seed guide: {guide})"
    return f"(the server's own ports; the seed guide's generic figure is {guide})"


def _port(role: PortRole, spec: PortSpec, note: str) -> list[Port]:
    count, gbps = spec
    if count < 0 or gbps < 0:
        raise ValueError(f"{role.value}: ports and Gb/s must be >= 0, got {spec}")
    return [Port(role=role, count=count, gbps=gbps, note=note)] if count else []


def ports_per_server(
    workload: str | Workload,
    gpus_per_node: int,
    compute_gbps: int,
    compute_ports: int | None = None,
    storage: PortSpec | None = None,
    inband: PortSpec | None = None,
    oob: PortSpec | None = None,
    inference: PortSpec | None = None,
    served_across_servers: bool = False,
) -> list[Port]:
    """The ports one server needs, one `Port` per role, each with a note saying why.

    - training / mixed: `compute_ports` (default: one per GPU) at `compute_gbps`,
      storage/data (default 2 x 100 GbE), in-band management (default 2 x 10 GbE),
      out-of-band (default 1 x 1 GbE BMC); inference-traffic ports only if
      `inference` is given.
    - inference: no compute-fabric ports (`compute_ports` is ignored) unless
      `served_across_servers` (a model too large for one server, served across servers
      over an RDMA fabric); inference
      traffic (default 2 x 100 GbE, which also loads model weights from storage),
      in-band management (default 1 x 10 GbE), out-of-band; storage only if
      `storage` is given.

    >>> [(p.role.value, p.count, p.gbps) for p in ports_per_server("training", 8, 400)]
    [('compute', 8, 400), ('storage', 2, 100), ('inband_management', 2, 10), ('out_of_band', 1, 1)]
    """
    kind = _workload(workload)
    if gpus_per_node < 1:
        raise ValueError(f"gpus_per_node: must be at least 1, got {gpus_per_node}")
    oob_note = "Out-of-band: the BMC port, for power, console and firmware when the host is down."
    ports: list[Port] = []
    if kind is Workload.inference:
        if served_across_servers and compute_ports:
            ports += _port(
                PortRole.compute,
                (compute_ports, compute_gbps),
                f"Compute fabric: the model does not fit one server's GPUs, so it is served split across "
                f"servers; {compute_ports} RDMA port(s) at {compute_gbps} Gb/s carry the tensor- or "
                "pipeline-parallel traffic between them.",
            )
        ports += _port(
            PortRole.inference_traffic,
            inference or INFERENCE_TRAFFIC,
            "Inference traffic: requests in, responses out, and model weights loaded from storage; "
            "inference needs no all-reduce, so standard Ethernet with ECMP suffices (seed guide: "
            "2x 100GbE or 400GbE).",
        )
        if storage:
            ports += _port(PortRole.storage, storage, "Storage: a separate path to the storage fabric.")
        ports += _port(
            PortRole.inband_management,
            inband or INFERENCE_INBAND,
            "In-band management: OS, provisioning, monitoring (seed guide: 1x 10GbE for inference servers).",
        )
        ports += _port(PortRole.out_of_band, oob or OUT_OF_BAND, oob_note)
        return ports

    per_gpu = compute_ports is None or compute_ports == gpus_per_node
    count = gpus_per_node if compute_ports is None else compute_ports
    if count == 0:
        compute_note = ""
    elif per_gpu:
        compute_note = (
            f"Compute fabric: one dedicated {compute_gbps} Gb/s port per GPU ({gpus_per_node} GPUs); "
            "sharing ports between GPUs bottlenecks all-reduce (seed guide)."
        )
    elif count < gpus_per_node:
        compute_note = (
            f"Compute fabric: {count} port(s) for {gpus_per_node} GPUs, so GPUs share ports and "
            "all-reduce is slower; the seed guide advises one dedicated port per GPU, but a PCIe "
            "server feeds about one 400 Gb/s NIC per two GPUs (NVIDIA's PCIe-optimized 2-8-5 "
            "configuration)."
        )
    else:
        compute_note = f"Compute fabric: {count} port(s) for {gpus_per_node} GPUs, as the server provides."
    ports += _port(PortRole.compute, (count, compute_gbps), compute_note)
    storage_note = (
        "Storage/data: datasets and checkpoints, off the compute fabric "
        + _basis(storage, TRAINING_STORAGE, "2x 100GbE")
        + "."
    )
    if kind is Workload.mixed:
        storage_note += " On a mixed cluster these also carry serving traffic unless inference ports are given."
    ports += _port(PortRole.storage, storage or TRAINING_STORAGE, storage_note)
    if inference:
        ports += _port(PortRole.inference_traffic, inference, "Inference traffic: requests and responses for serving.")
    ports += _port(
        PortRole.inband_management,
        inband or TRAINING_INBAND,
        "In-band management: OS, provisioning, job scheduling, monitoring "
        + _basis(inband, TRAINING_INBAND, "2x 10GbE")
        + ".",
    )
    ports += _port(PortRole.out_of_band, oob or OUT_OF_BAND, oob_note)
    return ports
