"""Bits and bytes: the one sum people ask a networking guide to do for them.

Link speeds are sold in bits per second (a 400G port, NDR 400 Gb/s, an 800G OSFP) and
GPU, memory and NVLink figures in bytes per second (900 GB/s per H100), so "is 400G
400 gigabytes a second?" and "400 gb/s = ? GB/s" are common, and a knowledge entry can
only state the rule, not the customer's number. This module reads the numbers and units
of such a question and answers with the conversion, as an entry of its own.

    >>> conversion("400 gb/s = ? GB/s").text.split(". ")[0]
    '400 Gb/s is 50 GB/s'
    >>> conversion("800G osfp = 800 gigaBYTES/s right?").text.split(". ")[0]
    'No: 800 Gb/s is 100 GB/s, not 800 GB/s'
    >>> conversion("how many 400G ports does a QM9700 have") is None
    True

Case matters where it carries the meaning: "GB/s" and "GBps" are bytes, "gb/s", "Gb/s"
and "Gbps" bits (a lower-case "gb/s" next to a network speed is how people type Gb/s);
spelled-out units ("gigabytes", "gigabits") count in any case.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel

from knowledge.search import Entry

Unit = Literal["bits", "bytes"]

_PREFIX = {"k": 1e-6, "m": 1e-3, "g": 1.0, "t": 1e3}
# a number starts where a run of digits starts: a match found from inside a run would also
# be found from its start, and trying every position of a long run is quadratic
_NUMBER = r"(?<!\d)(?P<number>\d+(?:\.\d+)?)"
# a quantity with its unit; the unit's case decides bits or bytes for the short forms
_QUANTITY = re.compile(
    _NUMBER + r"\s*(?:-\s*)?(?:"
    r"(?P<word>(?i:kilo|mega|giga|tera)(?i:bits?|bytes?))(?:\s*(?i:/\s*s|per\s+sec(?:ond)?|/sec|ps))?"
    r"|(?P<short>[KMGTkmgt][Bb])(?:\s*/\s*s(?:ec)?|ps)\b"
    r"|(?P<bare>[GTgt])(?:bps|bit)?\b(?!\s*/\s*s)"
    r")"
)
# a unit named without a number ("= ? GB/s", "in gigabytes")
# (not a product name: "GB200", "GB300")
_BYTES_UNIT = re.compile(r"\b[KMGT]B(?:/s|ps)?(?![a-z\d])|(?i:\b(?:kilo|mega|giga|tera)?bytes?\b)")
_BITS_UNIT = re.compile(r"\b[kmgtKMGT]b(?:/s|ps)\b|(?i:\b(?:kilo|mega|giga|tera)?bits?\b)")

SOURCE = (
    "IEC 80000-13:2008 (a byte is 8 bits; data rates in bit/s); IEEE 802.3 (Ethernet rates in bit/s); "
    "IBTA InfiniBand Architecture Specification (NDR 400 Gb/s, XDR 800 Gb/s per port); "
    "NVIDIA H100 Tensor Core GPU datasheet (NVLink 900 GB/s)"
)
DETAIL = (
    "Network speeds (400G Ethernet, NDR 400 Gb/s InfiniBand, an 800G OSFP optic) are given in bits per "
    "second; a byte is 8 bits, so a link's gigabytes per second are its gigabits divided by 8, and a full-duplex "
    "link carries that much in each direction at once. GPU-side figures such as NVLink's 900 GB/s per H100 are "
    "given in bytes per second and count both directions together, so convert before comparing them."
)


class Quantity(BaseModel):
    """One number of the question with its unit, in giga-units per second."""

    value: float
    unit: Unit


def quantities(text: str) -> list[Quantity]:
    """The rates stated in `text`, each in Gb/s or GB/s."""
    found = []
    for match in _QUANTITY.finditer(str(text or "")):
        number = float(match["number"])
        if match["word"]:
            word = match["word"].lower()
            unit: Unit = "bytes" if "byte" in word else "bits"
            prefix = word[0]
        elif match["short"]:
            unit = "bytes" if match["short"][1] == "B" else "bits"
            prefix = match["short"][0].lower()
        else:
            unit, prefix = "bits", match["bare"].lower()
        found.append(Quantity(value=number * _PREFIX[prefix], unit=unit))
    return found


def _format(value: float, unit: Unit) -> str:
    """A rate in giga-units, or in tera-units from 1,000 up ("14.4 Tb/s", not "14,400 Gb/s")."""
    prefix = "T" if value >= 1000 else "G"
    value = value / 1000 if prefix == "T" else value
    shown = f"{value:,.0f}" if value == int(value) else f"{value:,.2f}".rstrip("0").rstrip(".")
    return f"{shown} {prefix}{'b/s' if unit == 'bits' else 'B/s'}"


def rate_total(gbps: float) -> str:
    """A total link rate in Gb/s, with Tb/s and the bytes a second beside it ("25,600 Gb/s
    (25.6 Tb/s; 3.2 TB/s)"): totals are asked in either unit."""
    return f"{gbps:,.6g} Gb/s ({gbps / 1000:,.4g} Tb/s; {_format(gbps / 8, 'bytes')})"


def conversion(text: str) -> Entry | None:
    """The bits/bytes conversion a question asks for, or None when it asks none: it
    must state a rate and name both kinds of unit (with or without a number)."""
    text = str(text or "")
    stated = quantities(text)
    if not stated:
        return None
    units = {q.unit for q in stated}
    if _BYTES_UNIT.search(text):
        units.add("bytes")
    if _BITS_UNIT.search(text):
        units.add("bits")
    if units != {"bits", "bytes"}:
        return None
    given = next((q for q in stated if q.unit == "bits"), stated[0])
    other: Unit = "bytes" if given.unit == "bits" else "bits"
    converted = given.value / 8 if given.unit == "bits" else given.value * 8
    lead = f"{_format(given.value, given.unit)} is {_format(converted, other)}"
    claims = [q for q in stated if q.unit == other and abs(q.value - converted) > 1e-9]
    if any(abs(q.value - given.value) < 1e-9 for q in claims):
        lead = f"No: {lead}, not {_format(given.value, other)}"
    elif claims:
        ratio = claims[0].value / converted
        lead += f"; {_format(claims[0].value, other)} is {ratio:,.3g} times that"
    return Entry.computed(
        "units-bits-and-bytes", "Bits and bytes per second", f"{lead}. {DETAIL}", SOURCE, subject="units"
    )
