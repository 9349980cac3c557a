"""Counts asked with the question's own numbers that are not a collective's sum: how many
of a thing fit in a budget ("how many DGX H100 fit in a 40 kW rack at 10.2 kW each?"),
a total said the other way round ("each GPU has a 400G NIC: aggregate of 512 GPUs?") or
as a chain ("8 nodes x 8 GPUs x 400G"), the switches of a non-blocking fat tree for N
endpoints, and the transceivers of N optical links. knowledge.formulas asks these after
its collective sums and before its plain product, so each question gets one sum (the
fat-tree source and the radix pattern live here; formulas reads them from here).
"""

from __future__ import annotations

import math
import re

from knowledge.search import CALCULATION, Entry
from knowledge.units import rate_total

FAT_TREE_SOURCE = (
    "Al-Fares, Loukissas, Vahdat, 'A Scalable, Commodity Data Center Network Architecture', SIGCOMM 2008 "
    "(a fat tree of k-port switches: k/2 ports down and k/2 up per switch, k^3/4 hosts in three tiers; "
    "two tiers hold k^2/2)"
)
PRODUCT_SOURCE = "Fabric Advisor arithmetic (project's own) on the numbers in the question"
# the switches' port count: "128-port switches", "64 x 400G port switch", "switches with 64 ports",
# "every switch has 128 ports", "radix 64"
RADIX = re.compile(
    r"(?P<radix>\d{2,3})[\s-]*(?:x\s*\d+\s*g\w*\s*)?ports?\s+(?:[\w-]+\s+){0,2}(?:switch|leaf|leaves|leafs|spine)"
    r"|switch(?:es)?\s+(?:with|of|having|has|have)\s+(?P<radix2>\d{2,3})\s+ports"
    r"|radix(?:\s+of)?\s+(?P<radix3>\d{2,3})",
    re.I,
)

_NUMBER = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
# power, rack units and rates, each to one base: W, U, Gb/s
_UNITS: dict[str, tuple[str, float]] = {
    "w": ("W", 1.0),
    "watt": ("W", 1.0),
    "watts": ("W", 1.0),
    "kw": ("W", 1000.0),
    "ru": ("U", 1.0),
    "u": ("U", 1.0),
    "g": ("Gb/s", 1.0),
    "gb/s": ("Gb/s", 1.0),
    "gbps": ("Gb/s", 1.0),
    "gbe": ("Gb/s", 1.0),
    "t": ("Gb/s", 1000.0),
    "tb/s": ("Gb/s", 1000.0),
    "tbps": ("Gb/s", 1000.0),
}
_UNIT = r"kw|watts?|w|ru|u|gb/s|gbps|gbe|g|tb/s|tbps|t"


def _number(text: str) -> float:
    return float(text.replace(",", ""))


def _said(value: float, base: str) -> str:
    """A total in its base unit, with the larger unit beside it (W and kW, Gb/s and Tb/s)."""
    if base == "W":
        return f"{value:,.6g} W ({value / 1000:,.4g} kW)"
    if base == "Gb/s":
        return rate_total(value)
    return f"{value:,.6g} {base}"


# "how many DGX H100 fit in a 40 kW rack at 10.2 kW each", "how many 2U servers fit in 42U"
_FIT = re.compile(
    rf"how\s+many\s+(?P<things>[\w\s-]{{1,40}}?)\s+(?:can\s+)?(?:fit|go|run)\s+(?:in(?:to)?|on|per|within|under)\s+"
    rf"(?:a|an|one|each|the|our)?\s*(?P<cap>{_NUMBER})\s*-?\s*(?P<unit>{_UNIT})\b[^?]{{0,120}}?"
    rf"(?:at|of|drawing|using|with|draw(?:s|ing)?|takes?|needs?)\s+(?:about\s+)?(?P<each>{_NUMBER})\s*(?P<unit2>{_UNIT})?\b",
    re.I,
)


def fit_count(text: str) -> Entry | None:
    """How many things of a given draw or size fit a budget: floor(budget / each)."""
    found = _FIT.search(text)
    if found is None:
        return None
    unit = found["unit"].lower()
    base, scale = _UNITS[unit]
    each_unit = (found["unit2"] or unit).lower()
    each_base, each_scale = _UNITS.get(each_unit, (base, scale))
    if each_base != base:
        return None
    capacity, each = _number(found["cap"]) * scale, _number(found["each"]) * each_scale
    if each <= 0 or capacity <= 0:
        return None
    count = math.floor(capacity / each + 1e-9)
    things = found["things"].strip()
    left = capacity - count * each
    body = (
        f"{count:,} {things}: {_said(capacity, base)} / {_said(each, base)} each = {capacity / each:.3g}, "
        f"rounded down to whole ones ({_said(left, base)} left over)."
    )
    return Entry.computed("calculation-fit-count", f"How many {things} fit", body, PRODUCT_SOURCE, subject=CALCULATION)


# "each GPU has a 400G NIC ... 512 GPUs", "every switch draws 1.7 kW; we have 96 switches"
_EACH_FIRST = re.compile(
    rf"\b(?:each|every)\s+(?P<thing>[a-z][\w-]*)\s+(?:has|have|gets|draws|uses|carries|with|is|runs)\s+"
    rf"(?:a|an|one)?\s*(?P<x>{_NUMBER})\s*(?P<unit>{_UNIT})\b.{{0,80}}?(?<![\d.,])(?P<n>{_NUMBER})\s+(?P=thing)s?\b",
    re.I,
)
# "gives each of its 72 GPUs an 800 Gb/s ConnectX-8"
# "if each of 128 GPUs has a 400 Gb/s NIC"
_EACH_OF_N = re.compile(
    rf"\beach\s+of\s+(?:its|their|the|our|these|those)?\s*(?P<n>{_NUMBER})\s+(?P<thing>[a-z][\w-]*?)s?\s+"
    rf"(?:(?:has|have|gets|get|draws|uses|carries|runs|with)\s+)?(?:a|an|one)?\s*(?P<x>{_NUMBER})\s*(?P<unit>{_UNIT})\b",
    re.I,
)
_TOTAL_ASKED = re.compile(r"\b(?:total|aggregate|in\s+all|altogether|combined|sum|overall)\b", re.I)


def total_after_each(text: str) -> Entry | None:
    """A total asked the other way round: what each has first, then how many there are."""
    found = _EACH_FIRST.search(text) or _EACH_OF_N.search(text)
    if found is None or not _TOTAL_ASKED.search(text) or len(_EACH_OF_N.findall(text)) > 1:
        return None  # several kinds of part ("each of 48 switches ... and each of 3,072 optics"): their sum
    n, each = _number(found["n"]), _number(found["x"])
    base, scale = _UNITS[found["unit"].lower()]
    if n < 2 or not n.is_integer():
        return None
    total = n * each * scale
    thing = found["thing"]
    body = f"{_said(total, base)}: {n:,.0f} {thing}s x {_said(each * scale, base)} each = {_said(total, base)}."
    return Entry.computed(
        "calculation-total-after-each", f"Total over {n:,.0f} {thing}s", body, PRODUCT_SOURCE, subject=CALCULATION
    )


# "8 nodes x 8 gpus x 400G", "16 servers x 8 NICs x 400 Gb/s"
# (each count's word is letters after a space: a word that could swallow the "x" would make
# "1x1x1x..." backtrack without end)
_CHAIN = re.compile(
    rf"(?<![\w.])(?P<a>{_NUMBER})(?:\s+(?P<wa>[a-z]+))?\s*[x×\*]\s*(?P<b>{_NUMBER})(?:\s+(?P<wb>[a-z]+))?\s*[x×\*]\s*"
    rf"(?P<c>{_NUMBER})\s*(?P<unit>{_UNIT})\b",
    re.I,
)


def chained_product(text: str) -> Entry | None:
    """A product of three factors, the last with its unit: counts times a share."""
    found = _CHAIN.search(text)
    if found is None:
        return None
    a, b, c = (_number(found[k]) for k in ("a", "b", "c"))
    base, scale = _UNITS[found["unit"].lower()]
    total = a * b * c * scale
    said = " x ".join(
        part
        for part in (
            f"{a:g} {found['wa'] or ''}".strip(),
            f"{b:g} {found['wb'] or ''}".strip(),
            _said(c * scale, base),
        )
    )
    body = f"{_said(total, base)}: {said} = {_said(total, base)}."
    return Entry.computed(
        "calculation-chained-product", "Total of a product", body, PRODUCT_SOURCE, subject=CALCULATION
    )


_HOW_MANY_SWITCHES = re.compile(r"how\s+many\s+(?:[\w-]+\s+){0,3}?switch(?:es)?\b", re.I)
_ENDPOINTS = re.compile(
    rf"(?<![\d.])(?P<n>{_NUMBER})\s+(?:[\w-]+\s+)?(?:endpoints?|hosts?|gpus?|ports?|nodes?|servers?|nics?)\b", re.I
)


def fat_tree_switches(text: str) -> Entry | None:
    """The switches of a non-blocking fat tree of k-port switches for N endpoints: one switch
    up to k, two tiers up to k^2/2 (N/(k/2) leaves, N/k spines), three up to k^3/4 (as many
    spines as leaves, N/k core)."""
    radix = RADIX.search(text)
    asked = _HOW_MANY_SWITCHES.search(text)
    if radix is None or asked is None:
        return None
    k = int(radix["radix"] or radix["radix2"] or radix["radix3"])
    ports = [m for m in _ENDPOINTS.finditer(text) if m.start() != radix.start()]
    if k < 4 or k % 2 or not ports:
        return None
    n = int(_number(ports[0]["n"]))
    half = k // 2
    if n <= k:
        body = f"One switch: {n:,} endpoints fit the {k} ports of a single {k}-port switch."
    elif n <= k * k // 2:
        leaves, spines = math.ceil(n / half), math.ceil(n / k)
        body = (
            f"{leaves + spines:,} switches in two tiers: {leaves:,} leaves (ceil({n:,} / {half}), each {half} ports "
            f"down and {half} up) and {spines:,} spines (ceil({n:,} / {k})), non-blocking; two tiers of {k}-port "
            f"switches hold up to {k * k // 2:,} endpoints (k^2/2)."
        )
    elif n <= k**3 // 4:
        leaves, cores = math.ceil(n / half), math.ceil(n / k)
        body = (
            f"{2 * leaves + cores:,} switches in three tiers: {leaves:,} leaves, {leaves:,} spines and {cores:,} core "
            f"switches (ceil({n:,} / {half}) leaves, as many spines, ceil({n:,} / {k}) core), non-blocking; three "
            f"tiers of {k}-port switches hold up to {k**3 // 4:,} endpoints (k^3/4)."
        )
    else:
        body = (
            f"{n:,} endpoints exceed the {k**3 // 4:,} (k^3/4) a non-blocking three-tier fat tree of {k}-port "
            "switches holds: choose a higher-radix switch, oversubscribe the leaves or use Dragonfly+."
        )
    return Entry.computed(
        "calculation-fat-tree-switches",
        "Fat-tree switches for a number of endpoints",
        body,
        FAT_TREE_SOURCE,
        subject=CALCULATION,
    )


_LINKS = re.compile(rf"(?<![\d.])(?P<n>{_NUMBER})\s+(?:[\w-]+\s+){{0,2}}?(?:links?|cables?|connections?)\b", re.I)
_BOTH_ENDS = re.compile(r"\b(?:both|each|either|two)\s+ends?\b|\bper\s+end\b", re.I)
_TRANSCEIVERS = re.compile(r"\b(?:transceivers?|optics|modules?|pluggables?|osfps?|qsfps?)\b", re.I)


def transceivers_for_links(text: str) -> Entry | None:
    """The transceivers of N optical links: one at each end, two per link."""
    found = _LINKS.search(text)
    if found is None or not _BOTH_ENDS.search(text) or not _TRANSCEIVERS.search(text):
        return None
    n = int(_number(found["n"]))
    body = (
        f"{2 * n:,} transceivers: {n:,} optical links x 2 (one at each end). Where a switch takes twin-port "
        f"800G OSFP modules (2 x 400G each), its end needs half as many modules: {n:,} links end in "
        f"{math.ceil(n / 2):,} twin-port modules on the switch side and {n:,} single-port ones on the NIC side."
    )
    source = "NVIDIA LinkX optics (one transceiver per link end; twin-port OSFP carries two 400G links)"
    return Entry.computed(
        "calculation-link-transceivers", "Transceivers for optical links", body, source, subject=CALCULATION
    )


_RATE = r"g|gb/s|gbps|gbe|gig|t|tb/s|tbps"
# "8 x 400G", "64 ports at 800G", "64 800G ports": a count of links and the rate of each
_RATE_PRODUCT = (
    re.compile(rf"(?<![\w.,])(?P<n>{_NUMBER})\s*[x×\*]\s*(?P<x>{_NUMBER})\s*(?P<unit>{_RATE})\b", re.I),
    re.compile(
        rf"(?<![\w.,])(?P<n>{_NUMBER})\s+(?P<things>[a-z][\w-]*(?:\s+[a-z][\w-]*)?)\s+(?:at|of|running\s+at|@)\s+"
        rf"(?P<x>{_NUMBER})\s*(?P<unit>{_RATE})\b",
        re.I,
    ),
    re.compile(
        rf"(?<![\w.,])(?P<n>{_NUMBER})\s+(?P<x>{_NUMBER})\s*(?P<unit>{_RATE})\s+(?P<things>ports?|links?|nics?|cables?|lanes?|"
        r"uplinks?|downlinks?|connections?)\b",
        re.I,
    ),
)
# the total rate is what is asked: a bandwidth, or a rate's unit ("how many GB/s", "in TB/s");
# not a cluster-wide figure the links alone do not give (bisection, per GPU)
_RATE_ASKED = re.compile(
    r"\b(?:bandwidth|throughput|capacity|injection)\b|\bhow\s+fast\b"
    r"|\b(?:how\s+many|in|into|to)\s+(?:[GT]B/s|[GT]b/s|gb/s|tb/s|gbps|tbps|gigabytes|gigabits|terabytes|terabits)"
    r"|=\s*\??\s*(?:[GT]B/s|[GT]b/s|gb/s|tb/s)",
    re.I,
)
_NOT_THE_LINKS = re.compile(r"\bbisection|\bper\s+(?:gpu|rank|accelerator)\b|\bsplit\b", re.I)


def rate_product(text: str) -> Entry | None:
    """The total rate of a number of links ("how many GB/s is 8 x 400G NICs?", "aggregate
    bandwidth of 64 ports at 800G?"): the count times each link's rate."""
    if not _RATE_ASKED.search(text) or _NOT_THE_LINKS.search(text):
        return None
    found = next((m for pattern in _RATE_PRODUCT if (m := pattern.search(text))), None)
    if found is None:
        return None
    n, each = _number(found["n"]), _number(found["x"])
    unit = found["unit"].lower()
    scale = 1000.0 if unit.startswith("t") else 1.0
    if n < 2 or not n.is_integer() or each <= 0:
        return None
    things = found.groupdict().get("things") or "links"
    total = rate_total(n * each * scale)
    body = f"{total}: {n:,.0f} {things} x {each * scale:g} Gb/s = {total} (a byte is 8 bits)."
    return Entry.computed(
        "calculation-rate-product", f"Total rate of {n:,.0f} {things}", body, PRODUCT_SOURCE, subject=CALCULATION
    )


def count(text: str) -> Entry | None:
    """The count a question asks with its own numbers, or None."""
    return (
        fit_count(text)
        or fat_tree_switches(text)
        or transceivers_for_links(text)
        or chained_product(text)
        or total_after_each(text)
        or rate_product(text)
    )
