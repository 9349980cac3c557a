"""Sums a networking question asks us to do with its own numbers.

A knowledge entry states a rule ("a ring all-reduce moves 2(n-1)/n of the buffer",
"a two-tier fat tree of radix k holds k^2/2 hosts"), but "how long does an all-reduce of
14 GB take over 400G?" or "how many GPUs can two tiers of 128-port switches hold?" wants
the rule applied to the asker's numbers. This module recognises those two sums, does them
and answers with the result first and the formula and its source after, as an entry of
its own (like knowledge.units for bits and bytes).

    >>> calculation("all-reduce of a 1 GB buffer across 8 GPUs, busbw is 100 GB/s").text.split(":")[0]
    'About 17.5 ms per all-reduce'
    >>> calculation("with 128 port switches how many gpus can 2 tiers hold").text.split(":")[0]
    'Two tiers of 128-port switches hold 8,192 hosts at full bisection'
    >>> calculation("what is PFC") is None
    True
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

from knowledge import counting
from knowledge.counting import FAT_TREE_SOURCE, PRODUCT_SOURCE, RADIX
from knowledge.search import CALCULATION, Entry
from knowledge.units import SOURCE as UNITS_SOURCE
from knowledge.units import Quantity, conversion, quantities, rate_total

ALLREDUCE_SOURCE = (
    "NVIDIA nccl-tests, doc/PERFORMANCE.md (algorithm and bus bandwidth: an all-reduce's time is "
    "size x 2(n-1)/n / busbw; https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md)"
)

_ALLREDUCE = re.compile(r"\ball[\s-]?reduce|\bgradient\s+sync|\bgrad(?:ient)?s?\s+sync", re.I)
# a buffer size: "14 GB", "1 GiB", "512 MB" (a rate's "/s" or "ps" excluded)
# ("a 4 gb buffer" in lower case too, but not a link's "400gb ports" or a rate's "gb/s")
_SIZE = re.compile(
    r"(?<!\d)(?P<number>\d+(?:\.\d+)?)\s*(?P<unit>[KMGTP]i?B|[kmgtp]i?b|(?i:kilo|mega|giga|tera|peta)bytes?)"
    r"(?!\s*(?:/|ps\b|per\s+s|(?i:e\b|links?|ports?|nics?|ethernet|infiniband|networks?|fabrics?|switch)))"
)
_SIZE_SCALE = {"k": 1e-6, "m": 1e-3, "g": 1.0, "t": 1e3, "p": 1e6}
# "7B params bf16", "70B model in fp32": the gradient buffer of a model
_PARAMS = re.compile(r"(?<!\d)(?P<number>\d+(?:\.\d+)?)\s*b\b(?:[\w\s-]{0,20}?)(?:param|model)", re.I)
_BYTES_PER_PARAM = (("fp32", 4), ("float32", 4), ("tf32", 4), ("fp8", 1), ("int8", 1))
_RANKS = re.compile(r"(?<![\w.])(?P<number>\d+)\s*(?:x\s*)?(?:gpus?|ranks?)\b", re.I)

_TIERS = re.compile(
    r"\b(?P<tiers>2|3|two|three)[\s-]*(?:tiers?|levels?|layers?|stages?)\b|(?P<leafspine>leaf[\s/-]*(?:and\s+)?spine)",
    re.I,
)
_HOW_MANY_HOSTS = re.compile(
    r"how\s+many\s+(?:[\w-]+\s+){0,2}(?:gpus?|hosts?|endpoints?|servers?|nodes?|nics?|ports?)|"
    r"\b(?:max(?:imum)?|largest|biggest)\b|\bhold\b|\bscale\s+to\b|\bsupport\b",
    re.I,
)
# "down ... up" on a line; each "down" reads on only to the next one (the last one before
# an "up" is found all the same, and a plain `.*` read to the line's end from every "down")
_DOWN = r"\bdown(?:link)?s?\b"
_UP = r"\bup(?:link)?s?\b"
_SPLIT = re.compile(
    rf"\bsplit\b|{_DOWN}(?:(?!{_DOWN}).)*{_UP}|{_UP}(?:(?!{_UP}).)*{_DOWN}",
    re.I,
)
_WORD_NUMBER = {"two": 2, "three": 3}


def quantities_named(text: str) -> dict[str, re.Match[str]]:
    """The quantities a sum reads from a question, by kind (a rank count, a buffer size, a
    rate), each the first of its kind: what a follow-up ("and with 128 GPUs?") changes."""
    kinds = {"ranks": _RANKS, "size": _SIZE, "rate": _RATE_AT}
    return {kind: match for kind, pattern in kinds.items() if (match := pattern.search(text))}


def calculation(text: str) -> Entry | None:
    """The sum a question asks for, done with its numbers, or None when it asks none."""
    text = str(text or "")
    return (
        allreduce_time(text)
        or transfer_time(text)
        or gather_scatter_traffic(text)
        or bus_bandwidth(text)  # names both bandwidths: before the ring factor it also holds
        or allreduce_traffic(text)
        or oversubscription_ratio(text)
        or model_memory(text)
        or leaf_split(text)
        or fat_tree_capacity(text)
        or counting.count(text)
        or per_unit_bill(text)
        or product_total(text)
        or conversion(text)
    )


_RING = re.compile(r"\bring\b", re.I)


def _ranks_and_buffer(text: str) -> tuple[int, float | None]:
    """The rank count (0 when none) and the buffer in GB (None when none) a ring sum reads."""
    ranks = _RANKS.search(text)
    return (int(ranks["number"]) if ranks else 0), _gigabytes(text)


_GATHER = re.compile(r"\ball[\s-]?gather|\breduce[\s-]?scatter", re.I)


def gather_scatter_traffic(text: str) -> Entry | None:
    """What each GPU receives in an all-gather (or sends in a reduce-scatter) on n ranks:
    (n-1)/n of the whole buffer, in GB when its size is named; the all-reduce is both
    halves, hence its 2(n-1)/n."""
    found = _GATHER.search(text)
    n, buffer = _ranks_and_buffer(text)
    if found is None or n < 2 or _ALLREDUCE.search(text):
        return None
    share = (n - 1) / n
    ratio = Fraction(n - 1, n)
    amount = f": {share * buffer:.4g} GB of a {buffer:g} GB buffer" if buffer else ""
    verb = "receives" if found.group(0).lower().startswith("all") else "sends"
    body = (
        f"(n-1)/n = {ratio.numerator}/{ratio.denominator} = {share:.4g} of the whole buffer{amount}, with n = {n}: "
        f"in a ring {found.group(0).lower()} each GPU {verb} the n-1 shards it does not hold (or owe), one "
        "neighbour step at a time; an all-reduce is a reduce-scatter then an all-gather, hence its 2(n-1)/n."
    )
    title = "All-gather / reduce-scatter traffic per GPU for n ranks"
    return Entry.computed("calculation-gather-traffic", title, body, ALLREDUCE_SOURCE, subject=CALCULATION)


def allreduce_traffic(text: str) -> Entry | None:
    """What each GPU sends in a ring all-reduce on n ranks, as a share of the buffer:
    2(n-1)/n, and in GB when the buffer's size is named (with no bandwidth, which
    `allreduce_time`, tried first, needs)."""
    if not (_ALLREDUCE.search(text) or _RING.search(text)):
        return None
    n, buffer = _ranks_and_buffer(text)  # "a 1 GB buffer across 16 GPUs": the amount, too
    if n < 2:
        return None
    factor = 2 * (n - 1) / n
    ratio = Fraction(2 * (n - 1), n)
    amount = f" ({factor * buffer:.4g} GB of a {buffer:g} GB buffer)" if buffer else ""
    body = (
        f"2(n-1)/n = {ratio.numerator}/{ratio.denominator} = {factor:.4g} times the buffer{amount} with n = {n}: in a ring "
        f"all-reduce (a reduce-scatter, then an all-gather) each GPU sends (and receives) (n-1)/n of the buffer in "
        f"each half, so {factor:.4g} x the buffer in all, in 2(n-1) = {2 * (n - 1)} communication steps (n-1 = "
        f"{n - 1} for the reduce-scatter, {n - 1} for the all-gather); the share tends to 2 as n grows, which is "
        "why busbw, not algbw, is comparable across rank counts."
    )
    title = "Ring all-reduce traffic per GPU for n ranks"
    return Entry.computed("calculation-ring-traffic", title, body, ALLREDUCE_SOURCE, subject=CALCULATION)


MEMORY_SOURCE = (
    'NVIDIA Technical Blog, "Mastering LLM Techniques: Inference Optimization" (2023): a model\'s weights take '
    "its parameters x the bytes of each (2 in FP16/BF16, 1 in FP8/INT8, 4 in FP32), before the KV cache"
)
_PRECISION = re.compile(r"\b(?P<p>bf16|fp16|float16|bfloat16|fp8|int8|fp32|float32|tf32|int4|fp4|nvfp4)\b", re.I)
_PRECISION_BYTES: dict[str, float] = {"bf16": 2, "fp16": 2, "float16": 2, "bfloat16": 2, "fp8": 1, "int8": 1, "fp32": 4}
_PRECISION_BYTES |= {"float32": 4, "tf32": 4, "int4": 0.5, "fp4": 0.5, "nvfp4": 0.5}
_GRADIENTS = re.compile(r"\bgrad(?:ient)?s?\b", re.I)
# "405B", "7-billion-parameter", "1.8 trillion"
_MODEL_SIZE = re.compile(r"(?<![\d.])(?P<n>\d{1,4}(?:\.\d+)?)\s*(?:-\s*)?(?P<u>[bt]|billion|trillion)\b", re.I)
# "8 x H100 80 GB", "8x 141GB": GPUs and the memory of each
_GPU_MEMORY = re.compile(r"(?<![\d.])(?P<g>\d{1,3})\s*x\s*(?:[a-z0-9-]{1,20}\s+){0,2}?(?P<m>\d{2,3})\s*gb\b", re.I)


# "tp 8, pp 4", "TP=8", "tensor parallel 8", "pipeline parallelism of 4"
_TP = re.compile(r"\b(?:tp|tensor[\s-]?parallel(?:ism)?)\s{0,3}(?:of|=|:|degree)?\s{0,3}(?P<n>\d{1,3})\b", re.I)
_PP = re.compile(r"\b(?:pp|pipeline[\s-]?parallel(?:ism)?)\s{0,3}(?:of|=|:|degree)?\s{0,3}(?P<n>\d{1,3})\b", re.I)


def _model_shards(text: str) -> int:
    """The GPUs one copy of the model is split over: its tensor- x pipeline-parallel degree."""
    degrees = [int(m["n"]) for m in (_TP.search(text), _PP.search(text)) if m]
    return max(1, math.prod(degrees)) if degrees else 1


def model_memory(text: str) -> Entry | None:
    """A model's weights at a precision ("405B in BF16": 810 GB), and whether they fit the
    GPUs the question names (their count x memory)."""
    precision, size = _PRECISION.search(text), _MODEL_SIZE.search(text)
    if not precision or not size:
        return None
    params_b = float(size["n"]) * (1000 if size["u"].lower().startswith("t") else 1)
    width = _PRECISION_BYTES[precision["p"].lower()]
    weights_gb = params_b * width
    name = precision["p"].upper()
    lead = f"About {weights_gb:,.0f} GB of weights: {params_b:g}B parameters x {width:g} bytes ({name})"
    if _GRADIENTS.search(text):  # data parallelism all-reduces one gradient per parameter
        lead += f"; the gradients all-reduced each step are one per parameter too: about {weights_gb:,.0f} GB"
        shards = _model_shards(text)
        if shards > 1:  # tensor and pipeline parallelism split the parameters, so each GPU holds its share
            lead += (
                f", split over TP x PP = {shards} GPUs, so each GPU all-reduces about {weights_gb / shards:.4g} GB "
                f"({weights_gb:,.0f} GB / {shards}) with its data-parallel peers"
            )
    gpus = _GPU_MEMORY.search(text)
    if gpus:
        capacity = int(gpus["g"]) * int(gpus["m"])
        fits = "it fits, with" if weights_gb < capacity else "it does not fit:"
        spare = capacity - weights_gb
        room = (
            f" {spare:,.0f} GB left for the KV cache and activations" if spare > 0 else " the weights alone exceed it"
        )
        lead += f". {gpus['g']} x {gpus['m']} GB = {capacity:,} GB: {fits}{room}"
    body = (
        f"{lead}. Serving also needs memory for the KV cache and activations; training with Adam needs about 16 "
        "bytes per parameter (weights, gradients, optimizer state), so it is split over many GPUs."
    )
    title = "Model memory from parameters and precision"
    return Entry.computed("calculation-model-memory", title, body, MEMORY_SOURCE, subject=CALCULATION)


OVERSUBSCRIPTION_SOURCE = (
    "Al-Fares, Loukissas, Vahdat, 'A Scalable, Commodity Data Center Network Architecture', SIGCOMM 2008 "
    "(oversubscription: the ratio of the bandwidth hosts can send to the bandwidth up the tree; 1:1 is "
    "full bisection); NVIDIA DGX SuperPOD Reference Architecture (a non-blocking compute fabric)"
)


# "48 down 16 up", "40 to servers, 24 up to the spine", "48 downlinks and 16 uplinks": a
# number, a few words at most, then which way its ports face
def _ports_facing(direction: str, toward: str, ends: str) -> re.Pattern[str]:
    """A port count and the way its ports face: `direction` written out ("down", "up"), or
    `toward` what they reach ("to the servers"); fillers are bounded, so the search is linear."""
    return re.compile(
        r"(?<![\d.])(?P<n>\d{1,4})\s*(?:x\s*(?:(?P<g>\d{2,4})\s*g(?:be|b/s|bps|b)?\s+)?)?"
        r"(?:(?!(?:down|up)\b)[a-z]{1,20}\s+){0,2}?"
        rf"(?:{direction}(?:links?|stream)?\b|(?:ports?\s+)?(?:{toward})\s+(?:the\s+)?(?:{ends})\b)",
        re.I,
    )


_PORTS_DOWN = _ports_facing("down", "to|for|toward|towards", "servers?|hosts?|gpus?|nodes?|nics?")
_PORTS_UP = _ports_facing("up", "to|toward|towards", "spines?|core|aggregation")


def oversubscription_ratio(text: str) -> Entry | None:
    """A leaf's oversubscription from how its ports are split: ports down to hosts over
    ports up (at the same speed): "48 down 16 up" is 3:1."""
    down, up = _PORTS_DOWN.search(text), _PORTS_UP.search(text)
    if not down or not up or down.start() == up.start():
        return None
    hosts, uplinks = int(down["n"]), int(up["n"])
    if not hosts or not uplinks:
        return None
    ratio = Fraction(hosts, uplinks)
    speeds = (int(down["g"]), int(up["g"])) if down["g"] and up["g"] else None
    if speeds is not None:
        # "40x100g down and 4x400g up": bandwidth down over bandwidth up
        ratio = Fraction(hosts * speeds[0], uplinks * speeds[1])
    exact = f"{ratio.numerator}:{ratio.denominator}"
    shown = f"{float(ratio):.3g}:1" if ratio.denominator != 1 else exact
    also = f" ({exact})" if ratio.denominator != 1 else ""
    verdict = (
        "non-blocking (full bisection bandwidth)"
        if ratio == 1
        else "more uplink than host bandwidth (undersubscribed)"
        if ratio < 1
        else f"oversubscribed: when every host sends at once, each gets about {float(1 / ratio):.0%} of its line rate up the tree"
    )
    split = (
        f"{hosts} x {speeds[0]}G down to hosts ({hosts * speeds[0]:,} Gb/s) over {uplinks} x {speeds[1]}G up to the "
        f"spines ({uplinks * speeds[1]:,} Gb/s)"
        if speeds is not None
        else f"{hosts} ports down to hosts over {uplinks} up to the spines (same port speed)"
    )
    body = (
        f"{shown}{also}: {split}, so the leaf "
        f"is {verdict}. GPU training back-ends are built 1:1 (NVIDIA's DGX SuperPOD compute fabric is "
        "non-blocking); oversubscription is usual only for storage, front-end or inference networks."
    )
    title = "Leaf oversubscription from its port split"
    return Entry.computed("calculation-oversubscription", title, body, OVERSUBSCRIPTION_SOURCE, subject=CALCULATION)


# "an algbw of 50 GB/s on 16 ranks": bus bandwidth asked of an algorithm bandwidth
_BUSBW_ASKED = re.compile(r"\bbus\s*(?:bandwidth|bw)\b|\bbusbw\b", re.I)
_ALGBW = re.compile(r"\balg(?:orithm)?\s*(?:bandwidth|bw)\b|\balgbw\b", re.I)


_GATHER_LIKE = re.compile(r"all[\s_-]?gather|reduce[\s_-]?scatter|all[\s_-]?to[\s_-]?all", re.I)
_ONE_TO_ONE = re.compile(r"\bbroadcast|\breduce_perf|\breduce\b(?![\s_-]?scatter)|send[\s_-]?recv", re.I)


def _busbw_factor(text: str, n: int) -> tuple[str, str, float]:
    """The collective a question names and nccl-tests' busbw factor for it (PERFORMANCE.md):
    all-reduce 2(n-1)/n; all-gather, reduce-scatter and all-to-all (n-1)/n; broadcast,
    reduce and send/recv 1."""
    if (named := _GATHER_LIKE.search(text)) is not None and not _ALLREDUCE.search(text):
        name = named.group(0).lower().replace("_", "-").replace(" ", "-")
        return name, "(n-1)/n", (n - 1) / n
    if _ONE_TO_ONE.search(text) and not _ALLREDUCE.search(text):
        return "broadcast, reduce or send/recv", "1", 1.0
    return "all-reduce", "2(n-1)/n", 2 * (n - 1) / n


def bus_bandwidth(text: str) -> Entry | None:
    """nccl-tests' two bandwidths of an all-reduce on n ranks, one from the other:
    busbw = algbw x 2(n-1)/n. The one given is the one the rate is stated for (the name
    nearest before it); with a buffer size, the time it takes too (size / algbw)."""
    busbw_named, algbw_named = _BUSBW_ASKED.search(text), _ALGBW.search(text)
    if not busbw_named or not algbw_named:
        return None
    ranks = _RANKS.search(text)
    rates = quantities(text)
    if not ranks or not rates:
        return None
    n = int(ranks["number"])
    if n < 2:
        return None
    rate = _gbytes_per_second(text, rates[0])
    collective, formula, factor = _busbw_factor(text, n)
    stated_at = _RATE_AT.search(text)
    given_bus = stated_at is not None and _nearest_before(text, stated_at.start()) == "bus"
    if given_bus:
        busbw, algbw = rate, rate / factor
        lead = f"About {algbw:.4g} GB/s of algorithm bandwidth"
        sum_ = f"{busbw:g} GB/s / {factor:.4g} = {algbw:.4g} GB/s"
    else:
        algbw, busbw = rate, rate * factor
        lead = f"About {busbw:.4g} GB/s"
        sum_ = f"{algbw:g} GB/s x {factor:.4g} = {busbw:.4g} GB/s"
    size_gb = buffer_gigabytes(text)
    took = (
        f" An {collective} of {_amount(size_gb)} GB then takes {_amount(size_gb)} GB / {algbw:.4g} GB/s = "
        f"{_duration(size_gb / algbw)}."
        if size_gb
        else ""
    )
    body = (
        f"{lead}: for an {collective} nccl-tests reports busbw = algbw x {formula}, and with n = {n} ranks the "
        f"factor is {factor:.4g}, so {sum_}.{took} The bus bandwidth is comparable to the links' speed whatever the "
        "rank count (algbw, the buffer size over the time, is not)."
    )
    title = "Algorithm and bus bandwidth (nccl-tests)"
    return Entry.computed("calculation-busbw", title, body, ALLREDUCE_SOURCE, subject=CALCULATION)


#: the first rate a question states ("180 GB/s", "45 gb/s"), to tell which bandwidth it is given for
_RATE_AT = re.compile(r"(?<![\d.])\d+(?:\.\d+)?\s*(?:[GT]B/s|gb/s|GB/sec|Gbps|gbps|Gb/s)", re.I)


def _nearest_before(text: str, at: int) -> str:
    """Which bandwidth is named nearest before position `at`: "bus" or "alg"."""
    before = text[:at]
    bus = max((m.end() for m in _BUSBW_ASKED.finditer(before)), default=-1)
    alg = max((m.end() for m in _ALGBW.finditer(before)), default=-1)
    return "bus" if bus > alg else "alg"


#: "busbw is 45 gb/s": nccl-tests reports its bandwidths in GB/s, so a lower-case "gb/s"
#: beside one is bytes (a link's "400 Gb/s" keeps its capital G)
_LOWER_GBYTES = re.compile(r"\d\s*gb/s\b|\d\s*gbps\b")


def _gbytes_per_second(text: str, rate: Quantity) -> float:
    """A rate the question states, in GB/s."""
    if rate.unit == "bits" and _LOWER_GBYTES.search(text) and (_BUSBW_ASKED.search(text) or _ALGBW.search(text)):
        return rate.value
    return rate.value / 8 if rate.unit == "bits" else rate.value


def buffer_gigabytes(text: str) -> float | None:
    """The size a text names, in GB ("an all-reduce of 20 GB", "512 MB messages"), or None."""
    size = _SIZE.search(text)
    return float(size["number"]) * _SIZE_SCALE[size["unit"][0].lower()] if size else None


def _gigabytes(text: str) -> float | None:
    """The buffer a question names, in GB: a size ("14 GB"), else a model's gradients
    ("7B params bf16": 2 bytes a parameter unless fp32 or fp8 is named)."""
    size = buffer_gigabytes(text)
    if size is not None:
        return size
    params = _PARAMS.search(text)
    if params:
        lowered = text.lower()
        width = next((bytes_ for name, bytes_ in _BYTES_PER_PARAM if name in lowered), 2)
        return float(params["number"]) * width
    return None


def _amount(value: float) -> str:
    """A number as people write it: "1,000,000", "2,000", "0.5", never "1e+06"."""
    return f"{value:,.0f}" if value == int(value) else f"{value:,.4g}"


def _duration(seconds: float) -> str:
    if seconds >= 3600:
        return f"{seconds:,.0f} s ({seconds / 3600:,.3g} hours)"
    if seconds >= 120:
        return f"{seconds:,.0f} s ({seconds / 60:,.3g} minutes)"
    if seconds >= 1:
        return f"{seconds:.3g} s"
    millis = seconds * 1e3
    return f"{millis:.3g} ms" if millis < 100 else f"{seconds:.2g} s ({millis:.0f} ms)"


def _size_over_rate(text: str, size_gb: float | None) -> tuple[float, Quantity, float] | None:
    """The size (GB), the last rate the question states and that rate in GB/s, when it
    states both: what a time over a link is worked out from."""
    rates = quantities(text)
    if size_gb is None or not rates:
        return None
    bandwidth = _gbytes_per_second(text, rates[-1])
    return (size_gb, rates[-1], bandwidth) if bandwidth > 0 else None


def allreduce_time(text: str) -> Entry | None:
    """How long one all-reduce of the question's buffer takes at its bandwidth:
    size x 2(n-1)/n / bus bandwidth (nccl-tests); n large (factor 2) when no GPU count is given."""
    if not _ALLREDUCE.search(text):
        return None
    sized = _size_over_rate(text, _gigabytes(text))
    if sized is None:
        return None
    size_gb, rate, bandwidth = sized
    ranks = _RANKS.search(text)
    n = int(ranks["number"]) if ranks else 0
    factor = 2 * (n - 1) / n if n > 1 else 2.0
    seconds = size_gb * factor / bandwidth
    shown_rate = f"{bandwidth:g} GB/s ({rate.value:g} Gb/s)" if bandwidth != rate.value else f"{bandwidth:g} GB/s"
    how_many = f"n = {n} GPUs, 2(n-1)/n = {factor:.3g}" if n > 1 else "many GPUs, 2(n-1)/n close to 2"
    lead = f"About {_duration(seconds)} per all-reduce"
    body = (
        f"{lead}: a ring all-reduce sends 2(n-1)/n of the buffer through each GPU's link ({how_many}), so "
        f"{_amount(size_gb)} GB x {factor:.3g} / {shown_rate} = {_duration(seconds)}. That is the bandwidth term alone: "
        "it assumes the bus bandwidth is reached (nccl-tests' busbw; on 400 Gb/s links measured busbw is usually "
        "40-48 GB/s rather than the line rate's 50) and leaves out latency, which matters for small buffers."
    )
    title = "All-reduce time from buffer size and bandwidth"
    return Entry.computed("calculation-allreduce-time", title, body, ALLREDUCE_SOURCE, subject=CALCULATION)


_HOW_LONG = re.compile(
    r"\bhow\s+(?:long|much\s+time|many\s+(?:seconds|milliseconds|ms|minutes|hours|days))\b"
    r"|\btime\s+(?:to|it\s+takes)\b",
    re.I,
)


def transfer_time(text: str) -> Entry | None:
    """How long a size takes over one link at its rate ("how long to push 1 GB over a 400
    Gb/s link?"): bytes x 8 / bits per second, the serialisation time alone."""
    if not _HOW_LONG.search(text) or _BUSBW_ASKED.search(text) or _ALGBW.search(text) or _GATHER_LIKE.search(text):
        return None  # a collective's time is the collective's formula, not the wire's
    sized = _size_over_rate(text, buffer_gigabytes(text))
    if sized is None:
        return None
    size_gb, rate, bandwidth = sized
    seconds = size_gb / bandwidth
    shown_rate = f"{rate.value:g} Gb/s = {bandwidth:g} GB/s" if bandwidth != rate.value else f"{bandwidth:g} GB/s"
    body = (
        f"About {_duration(seconds)}: {_amount(size_gb)} GB at {shown_rate} (a byte is 8 bits) takes "
        f"{_amount(size_gb)} / {bandwidth:g} s = {_duration(seconds)} on the wire, at the full line rate. That is the "
        "serialisation time alone: protocol headers take a little more of the line rate, and the path's latency "
        "(switch hops, the fibre's length) adds to it."
    )
    return Entry.computed(
        "calculation-transfer-time", "Transfer time at a link's rate", body, UNITS_SOURCE, subject=CALCULATION
    )


RATIO = re.compile(r"(?<![\d.])(?P<r>\d{1,2}(?:\.\d)?)\s*(?::|to)\s*1\b")


def leaf_split(text: str) -> Entry | None:
    """How a leaf of radix k splits its ports for an oversubscription of r:1: r/(r+1) of
    them down to hosts, the rest up ("2:1 on a 64-port leaf": 43 down, 21 up)."""
    radix_match, ratio_match = RADIX.search(text), RATIO.search(text)
    if not radix_match or not ratio_match or not _SPLIT.search(text):
        return None
    k = int(radix_match["radix"] or radix_match["radix2"] or radix_match["radix3"])
    ratio = float(ratio_match["r"])
    if k < 4 or ratio < 1:
        return None
    down = round(k * ratio / (ratio + 1))
    up = k - down
    exact = down / up
    other = f"; {down - 1} down and {up + 1} up gives {(down - 1) / (up + 1):.2g}:1" if exact > ratio else ""
    lead = f"{down} ports down and {up} up"
    body = (
        f"{lead} on a {k}-port leaf for {ratio:g}:1 ({down}/{up} = {exact:.3g}:1{other}): down = k x r/(r+1) = "
        f"{k} x {ratio:g}/{ratio + 1:g}, rounded, and the rest up. At full bisection (1:1) it would be {k // 2} and "
        f"{k // 2}."
    )
    title = "Leaf port split for an oversubscription ratio"
    return Entry.computed("calculation-leaf-split", title, body, OVERSUBSCRIPTION_SOURCE, subject=CALCULATION)


def fat_tree_capacity(text: str) -> Entry | None:
    """Hosts a non-blocking fat tree of the question's switch radix holds in two or three
    tiers (k^2/2, k^3/4), or how a leaf splits its ports (k/2 down, k/2 up)."""
    radix_match = RADIX.search(text)
    tiers_match = _TIERS.search(text)
    if not radix_match or not tiers_match:
        return None
    k = int(radix_match["radix"] or radix_match["radix2"] or radix_match["radix3"])
    if k < 4 or k % 2:
        return None
    word = (tiers_match["tiers"] or "2").lower()
    tiers = _WORD_NUMBER.get(word) or int(word)
    half = k // 2
    split = f"each leaf uses {half} ports down to hosts and {half} up to the spines"
    if _HOW_MANY_HOSTS.search(text):
        hosts = k * k // 2 if tiers == 2 else k**3 // 4
        switches = (
            f"{k} leaves and {half} spines"
            if tiers == 2
            else f"{k * half} leaves, {k * half} spines and {half * half} core switches"
        )
        lead = f"{'Two' if tiers == 2 else 'Three'} tiers of {k}-port switches hold {hosts:,} hosts at full bisection"
        body = (
            f"{lead}: {split} ({'k^2/2' if tiers == 2 else 'k^3/4'} with k = {k}, using {switches}). "
            "One host here is one network port: one GPU where every GPU has its own NIC port. "
            "Oversubscribing the leaves (more ports down than up) holds more hosts at less bandwidth per host."
        )
    elif _SPLIT.search(text):
        lead = f"A non-blocking leaf of {k}-port switches splits {half} down and {half} up"
        body = f"{lead}: {split}, so the leaf's uplink bandwidth equals what its hosts can send."
    else:
        return None
    title = "Fat-tree capacity from switch radix"
    return Entry.computed("calculation-fat-tree", title, body, FAT_TREE_SOURCE, subject=CALCULATION)


# "1,024 optical transceivers each draw 15 W", "8 cx7 at 400g each", "64 leafs, each with 32
# uplinks": a count of things, then what each has or draws
_EACH_HAS = re.compile(
    r"(?<![\d.,])(?P<n>\d{1,3}(?:,\d{3})+|\d{1,6})\s+(?P<things>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,2}?)\s*,?\s*"
    r"(?:each\s+|apiece\s+)?(?:draw(?:s|ing)?|at|with|of|has|have|having|carry(?:ing)?|hold(?:s|ing)?|x|×)\s+"
    r"(?P<x>\d[\d,]*(?:\.\d+)?)\s*(?P<unit>kw|w|watts?|g|gb/s|gbps|gbe|t|tb/s|tbps|(?!x\b)[a-z]+)\b",
    re.I,
)
_EACH = re.compile(r"\b(?:each|apiece|per\s+\w+|every)\b", re.I)
_TOTAL_ASKED = re.compile(
    r"\b(?:total|in\s+all|altogether|combined|aggregate|sum|how\s+(?:much|many)|what\s+is\s+their)\b|="
    r"|\b(?:power|bandwidth|capacity|draw|throughput|consumption)\s+(?:of|for)\b",
    re.I,
)
_POWER_UNITS = {"w": 1.0, "watt": 1.0, "watts": 1.0, "kw": 1000.0}
#: a share added on top of a total ("plus 10% support", "+ 15% for spares")
_PLUS_PERCENT = re.compile(
    r"(?:plus|\+|and|with|adding|add)\s+(?:an?\s+)?(?:extra\s+)?(?P<p>\d{1,3}(?:\.\d+)?)\s*%", re.I
)
#: an amount written with its scale ("28k", "1.2m"): money, mostly. The number reader's table
#: (understanding/extraction/data/numbers.yaml) is not imported here: the knowledge layer
#: stays below the extraction pipeline (tests/test_imports.py)
_AMOUNT_SCALES = {"k": 1e3, "m": 1e6, "mm": 1e6, "million": 1e6}
_RATE_UNITS = {"g": 1.0, "gb/s": 1.0, "gbps": 1.0, "gbe": 1.0, "t": 1000.0, "tb/s": 1000.0, "tbps": 1000.0}


# where a list of parts ends: the question after it ("..., how many cables?")
_LIST_END = re.compile(r"[?.;]|,\s*(?:how|what|which|so)\b|\b(?:how|what|which)\b", re.I)
_PART = re.compile(
    r"(?<![\d.,])(?P<x>\d[\d,]*(?:\.\d+)?)\s+(?P<what>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,3}?)\s*(?=,|\band\b|\bplus\b|$)",
    re.I,
)


_SPREAD = re.compile(r"\b(?:over|across|among|between)\s+(?P<m>\d[\d,]*)\s+(?P<what>[a-z][\w-]*)", re.I)


def _listed_parts(segment: str) -> list[tuple[float, str]]:
    """The counted parts of a list ("8 back-end NIC ports, 2 front-end ports and 1 BMC
    port"), up to the question that follows it."""
    end = _LIST_END.search(segment)
    listed = segment[: end.start()] if end else segment
    return [(float(m["x"].replace(",", "")), m["what"].strip()) for m in _PART.finditer(listed)]


def _watts(match: re.Match[str]) -> float:
    """What one kind of part draws in all: its count times each one's draw, in watts."""
    return int(match["n"].replace(",", "")) * float(match["x"].replace(",", "")) * _POWER_UNITS[match["unit"].lower()]


#: "1000 links, ...": how many units the bill is for, opening the question
_UNITS_FIRST = re.compile(r"^\W*(?:for\s+)?(?P<n>\d{1,3}(?:,\d{3})+|\d{1,7})\s+(?P<things>[a-z][\w-]*)\b", re.I)
#: "2 optics each at $900", "$100 of fibre": one part of a unit's bill, with how many of it
_PRICED_PART = re.compile(
    r"(?:(?P<k>\d{1,4})\s+(?P<what>[a-z][\w-]*)\s+(?:each\s+)?(?:at|@|for|costing|of)\s+)?"
    r"\$\s?(?P<p>\d[\d,]*(?:\.\d+)?)(?:\s*(?P<s>k|m)\b)?(?:\s+(?:of|for|in)\s+(?P<of>[a-z][\w-]*))?",
    re.I,
)


def per_unit_bill(text: str) -> Entry | None:
    """A total of units that each cost several priced parts ("1000 links, 2 optics each at
    $900 plus $100 of fibre per link, total?"): each unit's parts added up, times the units."""
    units = _UNITS_FIRST.search(text)
    parts = list(_PRICED_PART.finditer(text))
    if units is None or len(parts) < 2 or not _EACH.search(text) or not _TOTAL_ASKED.search(text):
        return None
    n = int(units["n"].replace(",", ""))
    things = units["things"]
    terms: list[tuple[int, float, str]] = []
    for part in parts:
        count = int(part["k"]) if part["k"] else 1
        price = float(part["p"].replace(",", "")) * _AMOUNT_SCALES.get((part["s"] or "").lower(), 1.0)
        terms.append((count, price, part["what"] or part["of"] or "more"))
    each = sum(count * price for count, price, _ in terms)
    if n < 2 or each <= 0:
        return None
    listed = " + ".join(
        f"{count} {what} x ${price:,.0f}" if count > 1 else f"${price:,.0f} {what}" for count, price, what in terms
    )
    body = f"${n * each:,.0f}: each of the {n:,} {things} costs {listed} = ${each:,.0f}; {n:,} x ${each:,.0f} = ${n * each:,.0f}."
    return Entry.computed(
        "calculation-per-unit-bill", f"Total over {n:,} {things}", body, PRODUCT_SOURCE, subject=CALCULATION
    )


def product_total(text: str) -> Entry | None:
    """A total of things that each have or draw the same ("1,024 transceivers each draw
    15 W: total power?", "8 NICs at 400G each = bandwidth per node?", "64 leaves, each with
    32 uplinks: how many cables?"): the count times each one's share, in the unit asked."""
    found = _EACH_HAS.search(text)
    if found is None or not _EACH.search(text) or not _TOTAL_ASKED.search(text):
        return None
    n = int(found["n"].replace(",", ""))
    each = float(found["x"].replace(",", ""))
    unit = found["unit"].lower()
    if n < 2 or each <= 0:
        return None
    things = found["things"].strip()
    parts = _listed_parts(text[found.start("x") :])
    if len(parts) >= 2 and unit not in _POWER_UNITS and unit not in _RATE_UNITS:
        # "128 servers, each with 8 back-end NIC ports, 2 front-end ports and 1 BMC port": the
        # parts each one has, added up first
        each = sum(count for count, _ in parts)
        listed = " + ".join(f"{count:g} {what}" for count, what in parts)
        total = f"{n * each:,.6g}"
        body = f"{total}: {n:,} {things} x ({listed}) = {n:,} x {each:g} = {total}."
        return Entry.computed(
            "calculation-product-total", f"Total over {n:,} {things}", body, PRODUCT_SOURCE, subject=CALCULATION
        )
    others = [m for m in _EACH_HAS.finditer(text, found.end()) if m["unit"].lower() in _POWER_UNITS]
    if unit in _POWER_UNITS and others:
        # "48 switches draw 1,600 W and 3,072 transceivers draw 9 W each: total power?": each
        # kind of part counted, then added up
        terms = [found, *others]
        watts_each = [_watts(m) for m in terms]
        watts = sum(watts_each)
        said = " + ".join(
            f"{m['n']} {m['things'].strip()} x {float(m['x'].replace(',', '')):g} {m['unit']} = {w:,.0f} W"
            for m, w in zip(terms, watts_each, strict=True)
        )
        body = f"{watts:,.0f} W ({watts / 1000:,.4g} kW): {said}; together {watts:,.0f} W ({watts / 1000:,.4g} kW)."
        title = "Total power of the listed parts"
        return Entry.computed("calculation-product-total", title, body, PRODUCT_SOURCE, subject=CALCULATION)
    if unit in _POWER_UNITS:
        watts = _watts(found)
        total = f"{watts:,.0f} W ({watts / 1000:,.4g} kW)"
        each_said = f"{each:g} {'kW' if unit == 'kw' else 'W'}"
    elif unit in _RATE_UNITS:
        gbps = n * each * _RATE_UNITS[unit]
        total = rate_total(gbps)
        each_said = f"{each * _RATE_UNITS[unit]:g} Gb/s"
    elif unit in _AMOUNT_SCALES:
        # "64 switches at 28k each plus 10% support": an amount, written with its scale
        scale = _AMOUNT_SCALES[unit]
        amount = n * each * scale
        total = f"{amount:,.0f}"
        each_said = f"{each * scale:,.0f}"
        added = _PLUS_PERCENT.search(text, found.end())
        if added is not None:
            share = float(added["p"])
            with_share = amount * (1 + share / 100)
            body = (
                f"{with_share:,.0f}: {n:,} {things} x {each_said} each = {total}, plus {share:g}% "
                f"({amount * share / 100:,.0f}) = {with_share:,.0f}."
            )
            title = f"Total over {n:,} {things}"
            return Entry.computed("calculation-product-total", title, body, PRODUCT_SOURCE, subject=CALCULATION)
    else:
        total = f"{n * each:,.6g} {unit}"
        each_said = f"{each:g} {unit}"
    body = f"{total}: {n:,} {things} x {each_said} each = {total}."
    spread = _SPREAD.search(text, found.end())
    if spread and unit not in _POWER_UNITS and unit not in _RATE_UNITS and int(spread["m"].replace(",", "")) >= 2:
        # "... spread evenly over 16 spines, how many land on each spine?"
        over = int(spread["m"].replace(",", ""))
        body += f" Spread evenly over {over:,} {spread['what']}: {n * each / over:,.6g} on each."
    title = f"Total over {n:,} {things}"
    return Entry.computed("calculation-product-total", title, body, PRODUCT_SOURCE, subject=CALCULATION)
