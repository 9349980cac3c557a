"""The first line of a design, in every renderer: what was sized, e.g. "training on 128
H100 GPUs (16 servers x 8 GPUs, 70B-parameter model)".

Kept apart from advisor.render.markdown and .terminal, and importing nothing beyond the
standard library, so the CLI prints a design's first line the moment the design exists,
before rich and the renderers load (`make bench` times it: bench/cli.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rules.models import Recommendation

PRODUCT = "Fabric Advisor"


def workload_line(rec: Recommendation, escape: Callable[[str], str] = str) -> str:
    """What the design is for; escape is applied to the words a person typed (the GPU model)."""
    p = rec.profile
    gpu = f"{escape(p.gpu_model)} " if p.gpu_model else ""
    model = f", {p.model_params_b:g}B-parameter model" if p.model_params_b else ""
    node = rec.node_word
    return (
        f"{p.workload} on {p.gpu_count:,} {gpu}GPUs "
        f"({p.node_count:,} {node}{'s' if p.node_count != 1 else ''} x {p.gpus_per_node} GPUs{model})"
    )


def ports_label(rec: Recommendation) -> str:
    """The heading of the ports line: per server, or per NVL72 rack (its compute trays' ports together)."""
    return f"Ports per {rec.node_word}"


def title(rec: Recommendation) -> str:
    """The terminal's heading of a design: "Fabric Advisor: training on 128 H100 GPUs (...)"."""
    return f"{PRODUCT}: {workload_line(rec)}"
