"""A network cost range scaled from one priced reference fabric.

The only prices we have are whole-fabric figures, e.g. the seed guide ("What is the
cost difference between InfiniBand and Ethernet for a GPU cluster?"): a 16-node DGX
H100 cluster's InfiniBand HDR fabric "(switches + cables + NICs): ~$200K-$400K",
400GbE Ethernet "~$80K-$150K". So the cost model is deliberately simple: measure a
fabric in port-equivalents (switch ports installed + NIC ports + cables, each of
which is roughly one optic or port's worth of money), derive $/unit from the
reference fabric sized with the same functions, and multiply. Honest about what it
is: a scaled range, not a quote.

    units = fabric_units(reference_topology, nic_ports=128)
    low, high = usd_per_unit(200_000, 400_000, units)
    cost = network_cost(topology, nic_ports, low, high, basis="...", budget_usd=5e6)
"""

from __future__ import annotations

from rules.models import Cost, Topology


def fabric_units(topology: Topology, nic_ports: int) -> int:
    """Port-equivalents a fabric is made of: switches x radix + NIC ports + cables."""
    if nic_ports < 0:
        raise ValueError(f"nic_ports: must be >= 0, got {nic_ports}")
    switch_ports = topology.total_switches * (topology.radix or 0)
    return switch_ports + nic_ports + topology.total_cables


def usd_per_unit(reference_usd_low: float, reference_usd_high: float, reference_units: int) -> tuple[float, float]:
    """$/unit (low, high) from a priced reference fabric of `reference_units` units."""
    if reference_units <= 0:
        raise ValueError("reference_units: the reference fabric must have at least one unit")
    return reference_usd_low / reference_units, reference_usd_high / reference_units


def _thousands(usd: float) -> int:
    return round(usd / 1000) * 1000


def network_cost(
    topology: Topology,
    nic_ports: int,
    usd_per_unit_low: float,
    usd_per_unit_high: float,
    basis: str,
    budget_usd: float | None = None,
) -> Cost:
    """Network cost range = fabric units x $/unit, to the nearest $1,000.

    `basis` says where the $/unit came from (e.g. "scaled from the seed guide's
    16-node DGX H100 InfiniBand HDR fabric, $200K-$400K, by port-equivalents"); the
    unit count is appended. With a budget, the shares are cost / budget.
    """
    if usd_per_unit_low < 0 or usd_per_unit_high < usd_per_unit_low:
        raise ValueError("usd_per_unit: need 0 <= low <= high")
    units = fabric_units(topology, nic_ports)
    low = _thousands(units * usd_per_unit_low)
    high = _thousands(units * usd_per_unit_high)
    share_low = share_high = None
    if budget_usd is not None:
        if budget_usd <= 0:
            raise ValueError(f"budget_usd: must be > 0, got {budget_usd}")
        share_low = round(low / budget_usd, 4)
        share_high = round(high / budget_usd, 4)
    return Cost(
        network_usd_low=low,
        network_usd_high=high,
        basis=f"{basis} ({units:,} port-equivalents: switch ports + NIC ports + cables)",
        budget_share_low=share_low,
        budget_share_high=share_high,
    )
