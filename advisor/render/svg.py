"""The recommended topology as a standalone SVG diagram: `topology_svg(rec)`.

Servers sit at the bottom, the switch tiers (leaf, spine, core) above them; the left
column names each tier (how many switches, which model) and each band of links (how
many cables, at what speed). A rail-optimized fabric colours its rails, one colour per
rail, and draws each server's GPU ports to its rail's leaf. Dragonfly+ draws groups
joined by global links; a single server draws its GPUs on its scale-up link (NVLink through
NVSwitch, AMD Infinity Fabric, or PCIe).

Why it looks the way it does:
- Large fabrics are drawn as a handful of boxes standing for many switches ("... 1,593
  more", "x 200" stacks), never one box per switch, so a 100,000-GPU fabric draws as
  fast and as small as a 16-GPU one and still reads at a glance.
- The document is self-contained (no fonts, scripts or images from elsewhere), so it
  can be saved, mailed, embedded in the widget or converted to PNG as it is.
- Every piece of text from the recommendation is cleaned of characters XML forbids and
  escaped; numbers are printed with fixed precision, so the same recommendation always
  gives the same bytes (the output can be cached and compared).

It reads only the `Recommendation` (rendering is separate from deciding).
"""

from __future__ import annotations

import colorsys
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from xml.sax.saxutils import escape

from advisor.render.labels import labels
from advisor.render.wording import customer
from rules.models import CableTier, PortRole, Recommendation, Topology, TopologyKind
from rules.platform import platform_for

__all__ = ["topology_svg"]

# ------------------------------------------------------------------------- geometry

WIDTH = 1000
PAD = 24
LABEL_W = 214  # the left column: tier names and link bands
AREA_X0 = PAD + LABEL_W + 18  # the drawing area, right of the label column
AREA_X1 = WIDTH - PAD
HEADER_H = 84
SWITCH_H = 36
SERVER_H = 60
BAND_H = 88  # vertical room for the links between two rows
MAX_SWITCH_BOXES = 8  # per tier; more switches are elided into "... N more"
MAX_RAIL_BOXES = 16
MAX_SERVER_BOXES = 5
MAX_GROUP_BOXES = 5
MAX_CHIPS = 8  # GPUs drawn inside a server box

# -------------------------------------------------------------------------- colours

INK = "#1f2933"
MUTED = "#616e7c"
FAINT = "#9aa5b1"
RULE = "#e4e7eb"
LINK = "#8d99a8"
SERVER_STROKE = "#52606d"
SERVER_FILL = "#f5f7fa"
CHIP = "#3e4c59"
GLOBAL_LINK = "#d9822b"
FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif"

# (stroke, fill) per switch tier
TIER_COLOURS: dict[str, tuple[str, str]] = {
    "core": ("#7b5ea7", "#f3eefa"),
    "spine": ("#2f6fa7", "#e9f2fb"),
    "leaf": ("#2e8b74", "#e7f5f0"),
}

# Tableau 10, then evenly spread hues: distinct, colour-blind-aware for the usual 8 rails.
RAIL_PALETTE = (
    "#4e79a7",
    "#f28e2b",
    "#e15759",
    "#76b7b2",
    "#59a14f",
    "#edc948",
    "#b07aa1",
    "#ff9da7",
    "#9c755f",
    "#bab0ac",
)

# the short names of advisor/render/labels.yaml: diagrams have little room
ROLE_LABELS: dict[PortRole, str] = {PortRole(role): name.short for role, name in labels().port_roles.items()}
KIND_LABELS: dict[TopologyKind, str] = {TopologyKind(kind): name.short for kind, name in labels().topologies.items()}


# ---------------------------------------------------------------------------- text

_XML_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _clean(text: object) -> str:
    """Text with the characters XML 1.0 cannot carry removed (escaping cannot save them)."""
    return _XML_ILLEGAL.sub("", str(text))


def _text(text: object) -> str:
    return escape(_clean(text))


def _attr(value: object) -> str:
    if isinstance(value, float):
        value = _num(value)
    return escape(_clean(value), {'"': "&quot;"})


def _num(value: float) -> str:
    """A coordinate with at most one decimal, so output does not depend on float noise."""
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


def _fit(text: str, width: float, size: float) -> str:
    """The text shortened with an ellipsis to about `width` pixels at font `size`."""
    text = _clean(text)
    room = max(1, int(width / (size * 0.56)))
    return text if len(text) <= room else text[: room - 1].rstrip() + "…"


def _plural(n: int, one: str, many: str) -> str:
    return f"{n:,} {one if n == 1 else many}"


def _speed(gbps: float) -> str:
    """400 -> '400 Gb/s', 7200 -> '7.2 Tb/s', 203200 -> '203.2 Tb/s'."""
    for unit, scale in (("Pb/s", 1e6), ("Tb/s", 1e3)):
        if gbps >= scale:
            return f"{gbps / scale:,.1f}".removesuffix(".0") + f" {unit}"
    return f"{gbps:,.0f} Gb/s" if gbps >= 1 else f"{gbps * 1000:,.0f} Mb/s"


def _rail_colour(index: int) -> str:
    if index < len(RAIL_PALETTE):
        return RAIL_PALETTE[index]
    hue = (index * 0.381966) % 1.0  # golden-ratio steps keep neighbours apart
    r, g, b = colorsys.hls_to_rgb(hue, 0.45, 0.55)
    return f"#{round(r * 255):02x}{round(g * 255):02x}{round(b * 255):02x}"


def _tint(colour: str, amount: float = 0.86) -> str:
    """The colour mixed with white, for box fills."""
    rgb = [int(colour[i : i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(c + (255 - c) * amount):02x}" for c in rgb)


# ---------------------------------------------------------------------------- canvas


class _Canvas:
    """SVG elements in three layers: containers, then links, then boxes and text on top."""

    def __init__(self) -> None:
        self.backdrop: list[str] = []
        self.links: list[str] = []
        self.shapes: list[str] = []

    @staticmethod
    def _element(tag: str, attrs: dict[str, object], body: str | None = None) -> str:
        rendered = "".join(
            f' {name.rstrip("_").replace("_", "-")}="{_attr(value)}"'
            for name, value in attrs.items()
            if value is not None
        )
        return f"<{tag}{rendered}/>" if body is None else f"<{tag}{rendered}>{body}</{tag}>"

    def rect(self, x: float, y: float, w: float, h: float, backdrop: bool = False, **attrs: object) -> None:
        """A rounded box; a `backdrop` box (a container) is drawn beneath the links."""
        attrs.setdefault("rx", 5)
        layer = self.backdrop if backdrop else self.shapes
        layer.append(self._element("rect", dict(x=x, y=y, width=w, height=h, **attrs)))

    def rule(self, y: float) -> None:
        """A hairline across the page, between header, drawing and footer."""
        self.shapes.append(self._element("line", dict(x1=PAD, y1=y, x2=WIDTH - PAD, y2=y, stroke=RULE)))

    def circle(self, x: float, y: float, r: float, **attrs: object) -> None:
        self.shapes.append(self._element("circle", dict(cx=x, cy=y, r=r, **attrs)))

    def text(
        self,
        x: float,
        y: float,
        text: str,
        size: float = 12,
        fill: str = INK,
        anchor: str | None = None,
        weight: str | None = None,
        italic: bool = False,
    ) -> None:
        attrs = dict(
            x=x,
            y=y,
            font_size=size,
            fill=fill,
            text_anchor=anchor,
            font_weight=weight,
            font_style="italic" if italic else None,
        )
        self.shapes.append(self._element("text", attrs, _text(text)))

    def line(self, x1: float, y1: float, x2: float, y2: float, **attrs: object) -> None:
        attrs.setdefault("stroke", LINK)
        attrs.setdefault("stroke_width", 1)
        self.links.append(self._element("line", dict(x1=x1, y1=y1, x2=x2, y2=y2, **attrs)))

    def curve(self, points: Sequence[float], **attrs: object) -> None:
        """A quadratic curve from (x1, y1) through control (cx, cy) to (x2, y2)."""
        x1, y1, cx, cy, x2, y2 = (_num(p) for p in points)
        attrs.setdefault("fill", "none")
        self.links.append(self._element("path", dict(d=f"M{x1} {y1}Q{cx} {cy} {x2} {y2}", **attrs)))


# ----------------------------------------------------------------------------- slots


@dataclass(frozen=True)
class _Slot:
    """One drawn box: it stands for `count` items starting at item `first` (0-based)."""

    first: int
    count: int
    elided: bool = False


def _slots(n: int, most: int) -> list[_Slot]:
    """Boxes for n items, at most `most`: the first ones, '... k more', and the last."""
    if n <= most:
        return [_Slot(i, 1) for i in range(n)]
    head = most - 2
    return [
        *(_Slot(i, 1) for i in range(head)),
        _Slot(head, n - head - 1, elided=True),
        _Slot(n - 1, 1),
    ]


@dataclass(frozen=True)
class _Box:
    x: float
    y: float
    w: float
    h: float
    slot: _Slot

    @property
    def cx(self) -> float:
        return self.x + self.w / 2

    def top(self, i: int = 0, of: int = 1) -> tuple[float, float]:
        """The i-th of `of` points spread along the top edge (where links attach)."""
        return self.x + self.w * (i + 1) / (of + 1), self.y

    def bottom(self, i: int = 0, of: int = 1) -> tuple[float, float]:
        return self.x + self.w * (i + 1) / (of + 1), self.y + self.h


def _row(slots: list[_Slot], y: float, h: float, widest: float, x0: float = AREA_X0, x1: float = AREA_X1) -> list[_Box]:
    """Boxes for the slots, centred in equal columns across [x0, x1]."""
    column = (x1 - x0) / max(1, len(slots))
    w = min(widest, column - 14)
    return [_Box(x0 + column * (i + 0.5) - w / 2, y, w, h, s) for i, s in enumerate(slots)]


def _mesh(c: _Canvas, upper: list[_Box], lower: list[_Box], **attrs: object) -> None:
    """Every lower box to every upper box, attachment points fanned along the edges."""
    for j, low in enumerate(lower):
        for i, up in enumerate(upper):
            x1, y1 = up.bottom(j, len(lower))
            x2, y2 = low.top(i, len(upper))
            c.line(x1, y1, x2, y2, **attrs)


# ----------------------------------------------------------------------- facts read


@dataclass(frozen=True)
class _Facts:
    """What the drawing needs from the recommendation, with defaults filled in."""

    nodes: int
    gpus: int
    gpus_per_node: int
    gpu_model: str
    compute_ports: int

    @classmethod
    def of(cls, rec: Recommendation) -> _Facts:
        p = rec.profile
        gpn = p.gpus_per_node or 1
        nodes = p.node_count or max(1, math.ceil((p.gpu_count or gpn) / gpn))
        compute = sum(port.count for port in rec.ports_per_server if port.role is PortRole.compute)
        return cls(nodes, p.gpu_count or nodes * gpn, gpn, p.gpu_model or "GPU", compute)


def _cable(topo: Topology, tier: str) -> CableTier | None:
    return next((c for c in topo.cables if c.tier == tier), None)


def _cable_label(rec: Recommendation, tier: str) -> str:
    cable = _cable(rec.topology, tier)
    if cable is None:
        return f"{_speed(rec.fabric.link_gbps)} links"
    return f"{_plural(cable.count, 'cable', 'cables')} × {_speed(cable.gbps)}"


# ------------------------------------------------------------------- drawing parts


def _tier_label(c: _Canvas, y_mid: float, lines: Sequence[str]) -> None:
    """The left-column label of a row: a bold first line, muted detail below it."""
    y = y_mid - (len(lines) - 1) * 7 + 4
    for i, line in enumerate(lines):
        if i == 0:
            c.text(PAD, y, _fit(line, LABEL_W, 13), size=13, weight="600")
        else:
            c.text(PAD, y + 2, _fit(line, LABEL_W, 11), size=11, fill=MUTED)
        y += 15


def _band_label(c: _Canvas, y_top: float, y_bottom: float, label: str, between: str) -> None:
    """The left-column label of a band of links: cable count and speed, and which tiers."""
    mid = (y_top + y_bottom) / 2
    c.line(PAD, mid - 14, PAD, mid + 14, stroke=FAINT, stroke_width=2)
    c.text(PAD + 9, mid - 2, _fit(label, LABEL_W - 9, 11.5), size=11.5, fill=INK)
    c.text(PAD + 9, mid + 13, _fit(between, LABEL_W - 9, 10.5), size=10.5, fill=MUTED, italic=True)


def _switch_box(
    c: _Canvas,
    box: _Box,
    label: str,
    stroke: str,
    fill: str,
    total: int,
    stands_for: int = 1,
    rail: int | None = None,
) -> None:
    """A switch box; a box standing for several switches is drawn as a stack with 'x N'.

    `rail` (1-based) marks a rail's leaf box with `data-rail`, as its links and ports are.
    """
    if box.slot.elided:
        c.rect(box.x, box.y, box.w, box.h, fill="#ffffff", stroke=stroke, stroke_dasharray="4 3")
        c.text(box.cx, box.y + 15, "…", size=13, fill=stroke, anchor="middle", weight="700")
        more = f"{total:,} more" if box.w >= 10 * len(f"{total:,} more") * 0.56 + 6 else f"+{total:,}"
        c.text(box.cx, box.y + 28, _fit(more, box.w - 4, 10), size=10, fill=MUTED, anchor="middle")
        return
    if stands_for > 1:
        for off in (6, 3):
            c.rect(box.x + off, box.y - off, box.w, box.h, fill=fill, stroke=stroke, stroke_opacity=0.55)
    c.rect(box.x, box.y, box.w, box.h, fill=fill, stroke=stroke, stroke_width=1.4, data_rail=rail)
    if stands_for > 1:
        c.text(box.cx, box.y + 15, _fit(label, box.w - 6, 11), size=11, anchor="middle", weight="600")
        c.text(box.cx, box.y + 28, f"× {stands_for:,}", size=10, fill=MUTED, anchor="middle")
    else:
        c.text(box.cx, box.y + box.h / 2 + 4, _fit(label, box.w - 6, 11), size=11, anchor="middle", weight="600")


def _chips(c: _Canvas, x: float, y: float, w: float, gpus: int) -> None:
    """A row of GPU chips across width w; past MAX_CHIPS the last chip becomes '…'."""
    shown = min(gpus, MAX_CHIPS)
    gap = 3
    size = min(13.0, (w - gap * (shown - 1)) / shown)
    start = x + (w - (shown * size + gap * (shown - 1))) / 2
    for i in range(shown):
        left = start + i * (size + gap)
        if gpus > MAX_CHIPS and i == shown - 1:
            c.text(left + size / 2, y + 9, "…", size=11, fill=CHIP, anchor="middle", weight="700")
        else:
            c.rect(left, y, size, 11, rx=2, fill=CHIP)


def _server_box(
    c: _Canvas,
    box: _Box,
    title: str,
    facts: _Facts,
    ports: Sequence[str],
    servers: int = 1,
    label: str = "",
    rails: Sequence[int | None] = (),
) -> list[tuple[float, float]]:
    """A server (or a stack of alike servers) with its GPUs; returns its port points.

    `ports` are the colours of the port dots on the top edge, one per link drawn up;
    `rails` the rail (1-based) of each port, when the fabric has rails.
    """
    if box.slot.elided:
        c.rect(box.x, box.y, box.w, box.h, fill="#ffffff", stroke=SERVER_STROKE, stroke_dasharray="4 3")
        c.text(box.cx, box.y + 26, "…", size=14, fill=SERVER_STROKE, anchor="middle", weight="700")
        more = (
            f"{servers:,} more servers"
            if box.w >= 10 * len(f"{servers:,} more servers") * 0.56 + 6
            else f"+{servers:,}"
        )
        c.text(box.cx, box.y + 42, _fit(more, box.w - 4, 10), size=10, fill=MUTED, anchor="middle")
        return [box.top(i, len(ports)) for i in range(len(ports))]
    if servers > 1:
        for off in (6, 3):
            c.rect(
                box.x + off,
                box.y - off,
                box.w,
                box.h,
                fill=SERVER_FILL,
                stroke=SERVER_STROKE,
                stroke_opacity=0.5,
            )
    c.rect(box.x, box.y, box.w, box.h, fill=SERVER_FILL, stroke=SERVER_STROKE, stroke_width=1.3)
    c.text(box.cx, box.y + 17, _fit(title, box.w - 8, 10.5), size=10.5, anchor="middle", weight="600")
    _chips(c, box.x + 8, box.y + 25, box.w - 16, facts.gpus_per_node)
    text = label or f"{facts.gpus_per_node} × {facts.gpu_model}"
    c.text(box.cx, box.y + 51, _fit(text, box.w - 8, 9.5), size=9.5, fill=MUTED, anchor="middle")
    points = [box.top(i, len(ports)) for i in range(len(ports))]
    for i, ((x, y), colour) in enumerate(zip(points, ports, strict=True)):
        rail = rails[i] if i < len(rails) else None
        c.circle(x, y, 3.2, fill=colour, stroke="#ffffff", stroke_width=1, data_rail=rail)
    return points


def _server_title(slot: _Slot) -> str:
    return f"Server {slot.first + 1:,}"


def _servers_label(facts: _Facts, extra: str = "") -> list[str]:
    lines = [
        _plural(facts.nodes, "GPU server", "GPU servers"),
        f"{facts.gpus_per_node} × {facts.gpu_model} per server",
        f"{facts.gpus:,} GPUs in all" + extra,
    ]
    return lines


# -------------------------------------------------------------------------- layouts


def _draw_tree(c: _Canvas, rec: Recommendation, top: float) -> float:
    """Fat-tree and rail-optimized: core, spine, leaf rows above the servers."""
    topo, fabric, facts = rec.topology, rec.fabric, _Facts.of(rec)
    rail = topo.kind is TopologyKind.rail_optimized and topo.rails > 1
    model = fabric.switch_model or "switch model not set"
    tiers = [
        (k, n)
        for k, n in (
            ("core", topo.core_switches),
            ("spine", topo.spine_switches),
            ("leaf", topo.leaf_switches),
        )
        if n > 0
    ]

    rows: list[tuple[str, list[_Box]]] = []
    y = top
    for key, count in tiers:
        stroke, fill = TIER_COLOURS[key]
        detail = [model]
        if key == "leaf" and rail:
            slots = _slots(topo.rails, MAX_RAIL_BOXES)
            boxes = _row(slots, y, SWITCH_H, 104)
            per_rail = count / topo.rails
            for box in boxes:
                colour = SERVER_STROKE if box.slot.elided else _rail_colour(box.slot.first)
                share = (
                    round(per_rail * box.slot.count) if box.slot.elided else _share(count, topo.rails, box.slot.first)
                )
                label = f"Rail {box.slot.first + 1}" if box.w > 60 else f"R{box.slot.first + 1}"
                _switch_box(c, box, label, colour, _tint(colour), share, share, rail=box.slot.first + 1)
            su = topo.scalable_units
            detail.append(
                f"one per rail in each of {su} SUs"
                if su and su * topo.rails == count
                else f"{topo.rails} rails, " + _per(count, topo.rails, "rail")
            )
        else:
            boxes = _row(_slots(count, MAX_SWITCH_BOXES), y, SWITCH_H, 104)
            prefix = key.capitalize()
            for box in boxes:
                label = f"{prefix} {box.slot.first + 1:,}" if box.w > 70 else f"{prefix[0]}{box.slot.first + 1:,}"
                _switch_box(c, box, label, stroke, fill, box.slot.count)
        _tier_label(c, y + SWITCH_H / 2, [_plural(count, f"{key} switch", f"{key} switches"), *detail])
        rows.append((key, boxes))
        y += SWITCH_H + BAND_H

    # links between switch tiers
    for (upper_key, upper), (lower_key, lower) in pairwise(rows):
        _mesh(c, upper, lower, stroke=LINK, stroke_width=0.9, stroke_opacity=0.6)
        between = f"{lower_key} ↔ {upper_key}"
        if lower_key == "leaf" and topo.oversubscription > 1:
            between += f", {_num(topo.oversubscription)}:1 oversubscribed"
        _band_label(c, upper[0].y + SWITCH_H, lower[0].y, _cable_label(rec, f"{lower_key}-{upper_key}"), between)

    # servers
    leaves = rows[-1][1] if rows and rows[-1][0] == "leaf" else []
    if rail and leaves:
        servers = _row(_slots(facts.nodes, MAX_SERVER_BOXES), y, SERVER_H, 150)
        colours = [_rail_colour(b.slot.first) if not b.slot.elided else FAINT for b in leaves]
        rails = [None if b.slot.elided else b.slot.first + 1 for b in leaves]
        for s_index, box in enumerate(servers):
            points = _server_box(c, box, _server_title(box.slot), facts, colours, servers=box.slot.count, rails=rails)
            if box.slot.elided:
                continue
            for leaf, (x, py), colour, rail_no in zip(leaves, points, colours, rails, strict=True):
                lx, ly = leaf.bottom(s_index, len(servers))
                c.line(x, py, lx, ly, stroke=colour, stroke_width=1.4, stroke_opacity=0.85, data_rail=rail_no)
    elif leaves:
        _draw_server_groups(c, rec, facts, leaves, y)
    else:
        boxes = _row(_slots(facts.nodes, MAX_SERVER_BOXES), y, SERVER_H, 150)
        for box in boxes:
            _server_box(c, box, _server_title(box.slot), facts, [], servers=box.slot.count)
    if leaves:
        _band_label(c, leaves[0].y + SWITCH_H, y, _cable_label(rec, "node-leaf"), "GPU servers ↔ leaf")
    units = f" · {topo.scalable_units} SUs" if rail and topo.scalable_units else ""
    _tier_label(c, y + SERVER_H / 2, _servers_label(facts, units))
    y += SERVER_H
    if rail:
        y = _rail_legend(c, topo.rails, y + 26)
    return y


def _share(total: int, parts: int, index: int) -> int:
    """How many of `total` items part `index` of `parts` gets when spread evenly."""
    return total * (index + 1) // parts - total * index // parts


def _draw_server_groups(c: _Canvas, rec: Recommendation, facts: _Facts, leaves: list[_Box], y: float) -> None:
    """Non-rail servers: one box per server when few, else a stack under each leaf box."""
    n_leaf = rec.topology.leaf_switches
    if facts.nodes <= MAX_SWITCH_BOXES or facts.nodes < n_leaf:
        servers = _row(_slots(facts.nodes, MAX_SWITCH_BOXES), y, SERVER_H, 150)
        spread = n_leaf <= max(1, facts.compute_ports)  # each server has a port on every leaf
        for s_index, box in enumerate(servers):
            first = box.slot.first
            targets = leaves if spread else [b for b in leaves if _covers(b.slot, first * n_leaf // facts.nodes)]
            points = _server_box(c, box, _server_title(box.slot), facts, [LINK] * len(targets), servers=box.slot.count)
            if box.slot.elided:
                continue
            for leaf, (x, py) in zip(targets, points, strict=True):
                lx, ly = leaf.bottom(s_index, len(servers)) if spread else leaf.bottom()
                c.line(x, py, lx, ly, stroke=LINK, stroke_width=1.2)
        return
    for leaf in leaves:
        first = leaf.slot.first * facts.nodes // n_leaf
        last = (leaf.slot.first + leaf.slot.count) * facts.nodes // n_leaf
        count = last - first
        box = _Box(leaf.x, y, leaf.w, SERVER_H, leaf.slot)
        title = f"Servers {first + 1:,}–{last:,}" if count > 1 else f"Server {first + 1:,}"
        if box.w < 9 * len(title):
            title = _plural(count, "server", "servers")
        points = _server_box(
            c,
            box,
            title,
            facts,
            [LINK],
            servers=count,
            label=f"{facts.gpus_per_node} × {facts.gpu_model} each",
        )
        if not leaf.slot.elided:
            (x, py), (lx, ly) = points[0], leaf.bottom()
            c.line(x, py, lx, ly, stroke=LINK, stroke_width=1.6)


def _per(total: int, parts: int, unit: str) -> str:
    """'32 per group', or '~32.5 per group' when the total does not split evenly."""
    if total % parts == 0:
        return f"{total // parts:,} per {unit}"
    return f"~{total / parts:,.1f} per {unit}"


def _covers(slot: _Slot, index: int) -> bool:
    return slot.first <= index < slot.first + slot.count


def _rail_legend(c: _Canvas, rails: int, y: float) -> float:
    """One swatch per rail: the colour of its leaf switches, ports and links."""
    c.text(PAD, y + 4, "Rails", size=13, weight="600")
    c.text(PAD, y + 20, "GPU port n → rail n leaf", size=11, fill=MUTED)
    slots = _slots(rails, MAX_RAIL_BOXES)
    step = min(74.0, (AREA_X1 - AREA_X0) / len(slots))
    for i, slot in enumerate(slots):
        x = AREA_X0 + i * step
        if slot.elided:
            c.text(x, y + 5, f"… {slot.count} more" if step >= 60 else "…", size=11, fill=MUTED)
            continue
        c.rect(x, y - 6, 14, 14, rx=3, fill=_rail_colour(slot.first), data_rail=slot.first + 1)
        c.text(x + 19, y + 5, f"Rail {slot.first + 1}" if step >= 60 else str(slot.first + 1), size=11)
    return y + 26


def _dragonfly_groups(topo: Topology) -> int:
    """Groups of a Dragonfly+: the scalable units when given, else half a radix of leaves each.

    A Dragonfly+ group is a two-level leaf/spine block; with radix k it holds k/2 leaves.
    """
    if topo.scalable_units:
        return topo.scalable_units
    if topo.radix and topo.leaf_switches:
        return max(1, math.ceil(topo.leaf_switches / max(1, topo.radix // 2)))
    return 1


def _draw_dragonfly(c: _Canvas, rec: Recommendation, top: float) -> float:
    """Dragonfly+: leaf/spine groups side by side, spines of every group joined by global links."""
    topo, facts = rec.topology, _Facts.of(rec)
    groups = _dragonfly_groups(topo)
    model = rec.fabric.switch_model or "switch model not set"
    arc_h = 96
    boxes = _row(_slots(groups, MAX_GROUP_BOXES), top + arc_h, 0, 150)
    mini_h = 22
    spine_y = top + arc_h + 34
    leaf_y = spine_y + mini_h + 92
    server_y = leaf_y + mini_h + 86
    bottom = server_y + SERVER_H + 12
    spine_stroke, spine_fill = TIER_COLOURS["spine"]
    leaf_stroke, leaf_fill = TIER_COLOURS["leaf"]

    # global links between every pair of drawn groups, above them
    drawn = len(boxes)
    for i, a in enumerate(boxes):
        for j in range(i + 1, drawn):
            b = boxes[j]
            x1, _ = a.top(j - 1, drawn - 1)
            x2, _ = b.top(i, drawn - 1)
            lift = min(arc_h - 8, 26 + 0.22 * (x2 - x1))
            y0 = top + arc_h
            c.curve(
                (x1, y0, (x1 + x2) / 2, y0 - 2 * lift, x2, y0),
                stroke=GLOBAL_LINK,
                stroke_width=1.5,
                stroke_opacity=0.8,
            )

    for g in boxes:
        x, w = g.x, g.w
        height = bottom - g.y
        if g.slot.elided:
            c.rect(x, g.y, w, height, backdrop=True, rx=8, fill="#ffffff", stroke=FAINT, stroke_dasharray="5 4")
            c.text(g.cx, g.y + height / 2 - 4, "…", size=16, fill=MUTED, anchor="middle", weight="700")
            c.text(
                g.cx,
                g.y + height / 2 + 14,
                f"{g.slot.count:,} more groups",
                size=11,
                fill=MUTED,
                anchor="middle",
            )
            continue
        c.rect(x, g.y, w, height, backdrop=True, rx=8, fill="#fbfcfd", stroke="#cbd2d9")
        c.text(g.cx, g.y + 18, f"Group {g.slot.first + 1:,}", size=11.5, anchor="middle", weight="600")
        spines = _mini_row(
            c,
            x,
            spine_y,
            w,
            _share(topo.spine_switches, groups, g.slot.first),
            spine_stroke,
            spine_fill,
            mini_h,
        )
        leaves = _mini_row(
            c, x, leaf_y, w, _share(topo.leaf_switches, groups, g.slot.first), leaf_stroke, leaf_fill, mini_h
        )
        _mesh(c, spines, leaves, stroke=LINK, stroke_width=0.9)
        n_servers = _share(facts.nodes, groups, g.slot.first)
        server = _Box(x + 10, server_y, w - 20, SERVER_H, _Slot(0, 1))
        points = _server_box(
            c, server, _plural(n_servers, "server", "servers"), facts, [LINK] * len(leaves), servers=n_servers
        )
        for leaf, (px, py) in zip(leaves, points, strict=True):
            lx, ly = leaf.bottom()
            c.line(px, py, lx, ly, stroke=LINK, stroke_width=1.1)

    _band_label(
        c,
        top,
        top + arc_h,
        _cable_label(rec, "group-global"),
        f"spine ↔ spine, between {_plural(groups, 'group', 'groups')}",
    )
    _tier_label(
        c,
        spine_y + mini_h / 2,
        [
            _plural(topo.spine_switches, "spine switch", "spine switches"),
            model,
            _per(topo.spine_switches, groups, "group"),
        ],
    )
    _band_label(c, spine_y + mini_h, leaf_y, _cable_label(rec, "leaf-spine"), "leaf ↔ spine, inside each group")
    _tier_label(
        c,
        leaf_y + mini_h / 2,
        [
            _plural(topo.leaf_switches, "leaf switch", "leaf switches"),
            model,
            _per(topo.leaf_switches, groups, "group"),
        ],
    )
    _band_label(c, leaf_y + mini_h, server_y, _cable_label(rec, "node-leaf"), "GPU servers ↔ leaf")
    _tier_label(c, server_y + SERVER_H / 2, _servers_label(facts))
    return bottom


def _mini_row(c: _Canvas, x: float, y: float, w: float, count: int, stroke: str, fill: str, h: float) -> list[_Box]:
    """Small switch boxes inside a group; more than four become three, '+N' and the last."""
    slots = _slots(count, 4)
    boxes = _row(slots, y, h, 24, x + 6, x + w - 6)
    for box in boxes:
        if box.slot.elided:
            c.text(box.cx, y + h / 2 + 4, f"+{box.slot.count:,}", size=10, fill=MUTED, anchor="middle")
        else:
            c.rect(box.x, box.y, box.w, box.h, rx=3, fill=fill, stroke=stroke, stroke_width=1.2)
    return [b for b in boxes if not b.slot.elided]


#: what joins one server's GPUs, by the platform's scale-up link: (the box, its tier label, the band)
_SCALE_UP_DRAWING = {
    "nvlink": ("NVSwitch", "NVSwitch, inside the server", "NVLink · {speed} per GPU", "GPU ↔ NVSwitch"),
    "infinity_fabric": ("AMD Infinity Fabric (xGMI)", "GPUs fully connected", "Infinity Fabric", "GPU ↔ GPU"),
    "pcie": ("PCIe switch / CPU root complex", "no NVLink on these cards", "PCIe", "GPU ↔ PCIe"),
}


def _draw_single_node(c: _Canvas, rec: Recommendation, top: float) -> float:
    """One server: its GPUs joined by its scale-up link (NVLink through NVSwitch, AMD
    Infinity Fabric, or only PCIe: from the platform record), no network switches."""
    facts = _Facts.of(rec)
    scale_up = platform_for(rec.profile.gpu_model).scale_up
    box_name, tier_name, band, band_detail = _SCALE_UP_DRAWING[scale_up.kind]
    x0, x1 = AREA_X0, AREA_X1
    switch_y = top + 40
    chip_y = switch_y + 30 + BAND_H if facts.gpus_per_node > 1 else top + 40
    box_h = chip_y + 44 + 20 - top
    c.rect(
        x0,
        top,
        x1 - x0,
        box_h,
        backdrop=True,
        rx=10,
        fill=SERVER_FILL,
        stroke=SERVER_STROKE,
        stroke_width=1.4,
    )
    c.text(
        (x0 + x1) / 2,
        top + 24,
        f"GPU server · {facts.gpus_per_node} × {facts.gpu_model}",
        size=12.5,
        anchor="middle",
        weight="600",
    )
    gpus = _row(_slots(facts.gpus_per_node, MAX_CHIPS), chip_y, 44, 62, x0 + 16, x1 - 16)
    if facts.gpus_per_node > 1:
        stroke, fill = "#76b900", "#f1f8e3"
        c.rect(x0 + 30, switch_y, x1 - x0 - 60, 30, rx=6, fill=fill, stroke=stroke, stroke_width=1.4)
        c.text((x0 + x1) / 2, switch_y + 20, box_name, size=12, anchor="middle", weight="600")
        for gpu in gpus:
            if not gpu.slot.elided:
                c.line(gpu.cx, chip_y, gpu.cx, switch_y + 30, stroke=stroke, stroke_width=3, stroke_opacity=0.8)
        _tier_label(c, switch_y + 15, [tier_name, "no network switches"])
        _band_label(c, switch_y + 30, chip_y, band.format(speed=_speed(rec.fabric.link_gbps)), band_detail)
    for gpu in gpus:
        if gpu.slot.elided:
            c.text(gpu.cx, chip_y + 27, f"… {gpu.slot.count} more", size=10.5, fill=MUTED, anchor="middle")
            continue
        c.rect(gpu.x, gpu.y, gpu.w, gpu.h, rx=4, fill=CHIP)
        c.text(
            gpu.cx,
            gpu.y + 27,
            f"GPU {gpu.slot.first}",
            size=10.5,
            fill="#ffffff",
            anchor="middle",
            weight="600",
        )
    detail = [] if facts.gpus_per_node > 1 else [f"no {scale_up.words} or network needed"]
    _tier_label(c, chip_y + 22, ["1 GPU server", f"{facts.gpus_per_node} × {facts.gpu_model}", *detail])
    return top + box_h


_LAYOUTS: dict[TopologyKind, Callable[[_Canvas, Recommendation, float], float]] = {
    TopologyKind.single_node: _draw_single_node,
    TopologyKind.fat_tree: _draw_tree,
    TopologyKind.rail_optimized: _draw_tree,
    TopologyKind.dragonfly_plus: _draw_dragonfly,
}


# --------------------------------------------------------------------------- document


def _titles(rec: Recommendation) -> tuple[str, str, str]:
    """The heading, the totals line under it, and the accessible description."""
    topo, facts = rec.topology, _Facts.of(rec)
    kind = KIND_LABELS.get(topo.kind, str(topo.kind))
    heading = f"{rec.fabric.name} — {kind}"
    totals = f"{facts.gpus:,} × {facts.gpu_model} on {_plural(facts.nodes, 'server', 'servers')}"
    if topo.total_switches or topo.total_cables:
        totals += f" · {_plural(topo.total_switches, 'switch', 'switches')}"
        totals += f" · {_plural(topo.total_cables, 'cable', 'cables')}"
    else:
        totals += " · no network switches or cables"
    if topo.tiers:
        totals += f" · {_plural(topo.tiers, 'tier', 'tiers')}"
    parts = [f"{heading}.", f"{totals}."]
    for name, n in (
        ("leaf", topo.leaf_switches),
        ("spine", topo.spine_switches),
        ("core", topo.core_switches),
    ):
        if n:
            parts.append(f"{_plural(n, name + ' switch', name + ' switches')}.")
    parts.extend(
        f"{cable.tier}: {_plural(cable.count, 'cable', 'cables')} at {_speed(cable.gbps)}." for cable in topo.cables
    )
    if topo.kind is TopologyKind.rail_optimized:
        parts.append(f"{topo.rails} rails; GPU port n of every server goes to a rail-n leaf.")
    return heading, totals, " ".join(parts)


def _footer(c: _Canvas, rec: Recommendation, y: float) -> float:
    """Ports each server needs, and the fabric's bisection bandwidth."""
    y += 26
    c.rule(y)
    ports = " · ".join(
        f"{p.count} × {_speed(p.gbps)} {ROLE_LABELS.get(p.role, p.role.value)}" for p in rec.ports_per_server if p.count
    )
    if ports:
        c.text(PAD, y + 22, _fit(f"Per server: {ports}", WIDTH - 2 * PAD - 170, 11.5), size=11.5, fill=MUTED)
    if rec.topology.bisection_gbps:
        c.text(
            WIDTH - PAD,
            y + 22,
            f"Bisection {_speed(rec.topology.bisection_gbps)}",
            size=11.5,
            fill=MUTED,
            anchor="end",
        )
    return y + 30


def topology_svg(rec: Recommendation) -> str:
    """The recommended topology of `rec` as a standalone SVG document (UTF-8 text).

    Servers at the bottom, switch tiers above with their model and counts, links with
    their cable counts and speeds, rails in colour; large fabrics drawn as groups.
    Same recommendation, same bytes.
    """
    rec = customer(rec)
    c = _Canvas()
    heading, totals, description = _titles(rec)
    bottom = _LAYOUTS[rec.topology.kind](c, rec, HEADER_H + 26)
    height = math.ceil(_footer(c, rec, bottom) + PAD / 2)
    c.text(PAD, 36, _fit(heading, WIDTH - 2 * PAD, 19), size=19, weight="700")
    c.text(PAD, 60, _fit(totals, WIDTH - 2 * PAD, 13), size=13, fill=MUTED)
    c.rule(HEADER_H - 6)
    return "\n".join(
        [
            '<?xml version="1.0" encoding="UTF-8"?>',
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
            f'viewBox="0 0 {WIDTH} {height}" role="img" aria-labelledby="title desc" '
            f'font-family="{_attr(FONT)}">',
            f'<title id="title">{_text(f"Topology: {heading} ({totals})")}</title>',
            f'<desc id="desc">{_text(description)}</desc>',
            f'<rect width="{WIDTH}" height="{height}" fill="#ffffff"/>',
            *c.backdrop,
            '<g stroke-linecap="round">',
            *c.links,
            "</g>",
            *c.shapes,
            "</svg>",
            "",
        ]
    )
