"""Sizing models the rules engine calls: plain typed functions of plain numbers.

- `fabric`: switch and cable counts (`size_fat_tree`, `size_rail_optimized`,
  `size_dragonfly_plus`, `single_node`), raising `FabricTooLarge` past capacity.
- `ports`: the ports each server needs (`ports_per_server`).
- `allreduce`: one gradient all-reduce (`allreduce_estimate`, `default_message_bytes`).
- `parallelism`: the default TP / PP / DP plan and its memory arithmetic (`plan_parallelism`).
- `steptime`: a training step's compute and exposed communication (`step_estimate`).
- `bom`: the bill of materials of a fabric from its topology and the price book
  (`fabric_lines`, `link_parts`).
- `cost`: the network cost summed from the bill of materials (`network_cost`, `cost_ratio`).

No database or YAML access here: the engine passes the catalogue's facts and the price book in.
"""

from rules.sizing.allreduce import AllReduceEstimate, allreduce_estimate, default_message_bytes
from rules.sizing.bom import ServerSide, SwitchPart, fabric_lines, link_parts, speed_class
from rules.sizing.cost import cost_ratio, network_cost
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
    "ServerSide",
    "SwitchPart",
    "allreduce_estimate",
    "cost_ratio",
    "default_message_bytes",
    "dragonfly_plus_capacity",
    "fabric_lines",
    "fat_tree_capacity",
    "leaf_port_split",
    "link_parts",
    "network_cost",
    "ports_per_server",
    "rail_optimized_capacity",
    "single_node",
    "size_dragonfly_plus",
    "size_fat_tree",
    "size_rail_optimized",
    "speed_class",
]
