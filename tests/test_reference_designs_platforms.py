"""docs/reference-designs.md, "Rack-scale and AMD designs": every row re-run through
`engine.recommend`, so the switches, the fabric, the collective library and its tests, and
the network cost printed there are what the tool gives (all-reduce times are left out of
that table until the traffic model of issue 21 lands)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rules.engine import recommend
from rules.formatting import usd_range
from rules.models import Recommendation, WorkloadProfile

TABLE = Path(__file__).parent.parent / "docs" / "reference-designs.md"
SECTION = "## Rack-scale and AMD designs"


def rows() -> list[list[str]]:
    """The cells of every row of the rack-scale and AMD table."""
    text = TABLE.read_text().split(SECTION, 1)[1]
    found = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 7 and "=" in cells[1]:
            found.append(cells)
    return found


def profile(asked: str) -> WorkloadProfile:
    fields: dict[str, object] = {"workload": "training"}
    for part in asked.strip("`").split(","):
        name, value = (p.strip() for p in part.split("="))
        fields[name] = int(value) if re.fullmatch(r"\d+", value) else value
    return WorkloadProfile.model_validate(fields)


def switches(rec: Recommendation) -> str:
    t = rec.topology
    if t.total_switches == 0:
        return "0 / 0 / 0; no compute fabric"
    cables = ", ".join(f"{c.count:,}" for c in t.cables)
    return f"{t.leaf_switches} / {t.spine_switches} / {t.core_switches}; {cables}; {rec.fabric.link_gbps}G"


def fabric(rec: Recommendation) -> str:
    configuration = rec.fabric_configuration
    on = f" on {rec.fabric.switch_model}" if rec.fabric.switch_model else ""
    if configuration is None:
        return f"{rec.fabric.name}{on}; -, -"
    library = "RCCL" if any(s.area == "rccl" for s in configuration.settings) else "NCCL"
    tests = configuration.validation[0].setting.split(" ")[0]
    return f"{rec.fabric.name}{on}; {library}, {tests}"


def test_the_table_has_the_rack_scale_and_amd_rows():
    designs = " ".join(r[0] for r in rows())
    for family in ("GB200 NVL72, 1 SU", "GB300 NVL72", "MI300X, one server", "MI300X, 8,192"):
        assert family in designs
    assert all(r[6] for r in rows()), "every row names its source"


@pytest.mark.parametrize("row", rows(), ids=[r[0] for r in rows()])
def test_each_row_is_what_the_tool_gives(row):
    design, asked, _, tool, words, cost, _ = row
    rec = recommend(profile(asked))
    assert switches(rec) == tool, f"{design}: the table says {tool!r}, the tool gives {switches(rec)!r}"
    assert fabric(rec) == words, f"{design}: the table says {words!r}, the tool gives {fabric(rec)!r}"
    priced = usd_range(rec.cost.network_usd_low, rec.cost.network_usd_high)
    assert priced == cost, f"{design}: the table says {cost!r}, the tool gives {priced!r}"
