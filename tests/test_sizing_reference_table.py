"""docs/reference-designs.md is a table a reviewer checks first: each published reference
design, what the advisor gives for it, and the source. This test re-runs every row through
`engine.recommend` and fails when the tool, the reference or the table disagree."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rules.engine import recommend
from rules.models import Recommendation, WorkloadProfile

TABLE = Path(__file__).parent.parent / "docs" / "reference-designs.md"


def summary(rec: Recommendation) -> str:
    """A design as the table writes it: leaf / spine / core; cables per tier; link speed."""
    t = rec.topology
    if t.total_switches == 0:
        return "0 / 0 / 0; no compute fabric"
    cables = ", ".join(f"{c.count:,}" for c in t.cables)
    return f"{t.leaf_switches} / {t.spine_switches} / {t.core_switches}; {cables}; {rec.fabric.link_gbps}G"


def rows() -> list[tuple[str, str, str, str]]:
    """(design, asked, reference, tool) of every table row."""
    found = []
    for line in TABLE.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and "=" in cells[1]:
            found.append((cells[0], cells[1].strip("`"), cells[2], cells[3]))
    return found


def profile(asked: str) -> WorkloadProfile:
    fields: dict[str, object] = {"workload": "training"}
    for part in asked.split(","):
        name, value = (p.strip() for p in part.split("="))
        fields[name] = int(value) if re.fullmatch(r"\d+", value) else value
    return WorkloadProfile.model_validate(fields)


def test_the_table_lists_every_reference_family():
    designs = " ".join(r[0] for r in rows())
    for family in ("H100", "B200", "B300-XDR", "GB200", "2,048", "16,384", "16 DGX H100"):
        assert family in designs


@pytest.mark.parametrize("design, asked, reference, tool", rows(), ids=[r[0] for r in rows()])
def test_each_row_is_what_the_tool_gives_and_what_the_reference_builds(design, asked, reference, tool):
    given = summary(recommend(profile(asked)))
    assert given == tool, f"{design}: the table says the tool gives {tool!r}, it gives {given!r}"
    assert tool == reference, f"{design}: the tool ({tool}) differs from the reference ({reference})"
