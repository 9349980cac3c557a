"""Sizing models the rules engine calls: plain typed functions of plain numbers.

- `fabric`: switch and cable counts (`size_fat_tree`, `size_rail_optimized`,
  `size_dragonfly_plus`, `single_node`), raising `FabricTooLarge` past capacity.
- `ports`: the ports each server needs (`ports_per_server`).
- `allreduce`: one gradient all-reduce (`allreduce_estimate`, `default_message_bytes`).
- `parallelism`: the default TP / PP / DP plan and its memory arithmetic (`plan_parallelism`).
- `steptime`: a training step's compute and exposed communication (`step_estimate`).
- `cost`: a network cost range scaled from a priced reference (`network_cost`).

No database or YAML access here: the engine passes the catalogue's facts in.
"""

from rules.sizing.allreduce import AllReduceEstimate, allreduce_estimate, default_message_bytes
from rules.sizing.cost import fabric_units, network_cost, usd_per_unit
from rules.sizing.fabric import (
    FabricTooLarge,
    dragonfly_plus_capacity,
    fat_tree_capacity,
    leaf_port_split,
    rail_optimized_capacity,
    single_node,
    size_dragonfly_plus,
    size_fat_tree,
    size_rail_optimized,
)
from rules.sizing.ports import ports_per_server

__all__ = [
    "AllReduceEstimate",
    "FabricTooLarge",
    "allreduce_estimate",
    "default_message_bytes",
    "dragonfly_plus_capacity",
    "fabric_units",
    "fat_tree_capacity",
    "leaf_port_split",
    "network_cost",
    "ports_per_server",
    "rail_optimized_capacity",
    "single_node",
    "size_dragonfly_plus",
    "size_fat_tree",
    "size_rail_optimized",
    "usd_per_unit",
]
