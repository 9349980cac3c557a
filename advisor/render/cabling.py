"""A recommendation's cabling plan as CSV (the API's cabling.csv and the CLI's
--cabling-csv): one row per cable of the compute, storage, in-band and out-of-band networks, streamed
in chunks so a 16,384-GPU plan never sits in memory as one string.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from itertools import islice

from rules.models import Recommendation
from rules.physical.build import PhysicalBuild
from rules.physical.cabling import COLUMNS, build_for, plan_rows

CHUNK_ROWS = 2_000


def cabling_build(rec: Recommendation) -> PhysicalBuild | None:
    """The physical build to list, or None when the design has no compute fabric to cable."""
    return build_for(rec)


def cabling_csv(build: PhysicalBuild) -> Iterator[str]:
    """The plan as CSV text in chunks of CHUNK_ROWS rows, the header first."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(COLUMNS)
    rows = plan_rows(build)
    while True:
        chunk = list(islice(rows, CHUNK_ROWS))
        if not chunk:
            break
        writer.writerows(chunk)
        yield out.getvalue()
        out.seek(0)
        out.truncate()
    if out.tell():
        yield out.getvalue()


NO_FABRIC = (
    "has no compute fabric cabled port by port (one server or one NVL72 rack, NVLink only, or a Dragonfly+ "
    "fabric); its bill of materials lists its parts"
)
