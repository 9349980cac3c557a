"""Checks on a wired fabric: what must hold for it to be built as drawn.

- no port used twice (every (device, port) appears on at most one cable);
- no switch above its radix (no port number at or past the radix, no more cables than ports);
- every GPU's NIC port cabled (every host port 0 .. ports-1 on a cable);
- planes disjoint (no switch carries two planes, and no cable joins two planes' switches);
- bisection by max-flow / min-cut equal to what the design states.

Each check returns the problems it found, as sentences; an empty list is a pass. The
mutation tests (tests/test_physical_checks.py) corrupt a graph and expect each check to
say so.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import networkx as nx

SWITCH_KINDS = frozenset({"leaf", "spine", "core"})


def _ends(graph: nx.MultiGraph[str]) -> Any:
    for _, _, data in graph.edges(data=True):
        yield data["a"], data["a_port"]
        yield data["b"], data["b_port"]


def ports_used_twice(graph: nx.MultiGraph[str]) -> list[str]:
    seen = Counter(_ends(graph))
    return [f"{device} port {port} is on {n} cables" for (device, port), n in seen.items() if n > 1]


def switches_over_radix(graph: nx.MultiGraph[str]) -> list[str]:
    problems = []
    used: Counter[str] = Counter()
    highest: dict[str, int] = {}
    for device, port in _ends(graph):
        used[device] += 1
        highest[device] = max(highest.get(device, -1), port)
    for device, data in graph.nodes(data=True):
        if data.get("kind") not in SWITCH_KINDS:
            continue
        radix = data["ports"]
        if used[device] > radix:
            problems.append(f"{device} has {used[device]} cables on {radix} ports")
        elif highest.get(device, -1) >= radix:
            problems.append(f"{device} uses port {highest[device]} of a {radix}-port switch")
    return problems


def uncabled_host_ports(graph: nx.MultiGraph[str]) -> list[str]:
    cabled: dict[str, set[int]] = {}
    for device, port in _ends(graph):
        cabled.setdefault(device, set()).add(port)
    problems = []
    for device, data in graph.nodes(data=True):
        if data.get("kind") != "host":
            continue
        missing = set(range(data["ports"])) - cabled.get(device, set())
        if missing:
            problems.append(f"{device}: NIC port(s) {sorted(missing)} not cabled")
    return problems


def planes_joined(graph: nx.MultiGraph[str]) -> list[str]:
    """Switches of two planes joined by a cable, or a component of the switch layer that
    spans planes (hosts removed: only hosts may touch both planes)."""
    problems: list[str] = []
    kinds = nx.get_node_attributes(graph, "kind")
    planes = nx.get_node_attributes(graph, "plane")
    for u, v, data in graph.edges(data=True):
        problems.extend(
            f"{device} (plane {planes.get(device)}) carries a cable of plane {data['plane']}"
            for device in (u, v)
            if kinds.get(device) in SWITCH_KINDS and planes.get(device) != data["plane"]
        )
    switches = graph.subgraph(n for n, k in kinds.items() if k in SWITCH_KINDS)
    for component in nx.connected_components(switches):
        spanned = {planes[n] for n in component}
        if len(spanned) > 1:
            problems.append(f"switches of planes {sorted(spanned)} are joined without a host between them")
    return problems


def bisection_gbps(graph: nx.MultiGraph[str]) -> float:
    """The bisection by max-flow / min-cut: hosts split in two halves in plan order (the
    first half of the scalable units against the second), every cable a capacity of its
    Gb/s in each direction; the max flow from one half to the other, scaled to half the
    endpoints when the halves are uneven (an odd number of hosts)."""
    hosts = [n for n, data in graph.nodes(data=True) if data.get("kind") == "host"]
    if len(hosts) < 2:
        return 0.0
    hosts.sort()
    half = len(hosts) // 2
    side_a, side_b = hosts[:half], hosts[half:]
    flow: nx.DiGraph[str] = nx.DiGraph()
    for u, v, data in graph.edges(data=True):
        for x, y in ((u, v), (v, u)):
            if flow.has_edge(x, y):
                flow[x][y]["capacity"] += data["gbps"]
            else:
                flow.add_edge(x, y, capacity=data["gbps"])
    capacity = {h: sum(d["gbps"] for _, _, d in graph.edges(h, data=True)) for h in hosts}
    for h in side_a:
        flow.add_edge("_source", h, capacity=capacity[h])
    for h in side_b:
        flow.add_edge(h, "_sink", capacity=capacity[h])
    value = nx.maximum_flow_value(flow, "_source", "_sink")
    a, b = sum(capacity[h] for h in side_a), sum(capacity[h] for h in side_b)
    total = a + b
    return float(value) * (total / 2) / min(a, b) if min(a, b) else 0.0


def bisection_differs(graph: nx.MultiGraph[str], stated_gbps: float) -> list[str]:
    measured = bisection_gbps(graph)
    if abs(measured - stated_gbps) > 1e-6 * max(1.0, stated_gbps):
        return [f"bisection by max-flow is {measured:,.0f} Gb/s where the design states {stated_gbps:,.0f}"]
    return []


def problems(graph: nx.MultiGraph[str], stated_bisection_gbps: float | None = None) -> list[str]:
    """Every check; the bisection only when a stated figure is given (max-flow is the
    slowest check)."""
    found = ports_used_twice(graph) + switches_over_radix(graph) + uncabled_host_ports(graph) + planes_joined(graph)
    if stated_bisection_gbps is not None:
        found += bisection_differs(graph, stated_bisection_gbps)
    return found
