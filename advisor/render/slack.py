"""Recommendations and replies for Slack: Block Kit blocks and Slack's mrkdwn.

Slack does not read markdown. Its own markup ("mrkdwn") writes bold as `*bold*`,
italics as `_italics_`, links as `<url|text>`, has no headings, and needs `&`, `<` and
`>` escaped; Block Kit lays a message out in blocks (header, fields, context lines).
The figures and sentences come from the same helpers as the markdown renderer
(advisor.render.markdown), so chat, Slack and the CLI say the same thing.

Limits this module keeps to (Slack's Block Kit reference): a header's text at most 150
characters, a section's text at most 3,000, at most 10 fields of 2,000 each, at most 10
elements per context block, at most 50 blocks per message.
"""

from __future__ import annotations

import re
from typing import Any

from advisor.render import headline
from advisor.render.bom import category_lines, sibling_url
from advisor.render.markdown import (
    TOPOLOGY_NAMES,
    cables_line,
    cost_range,
    duration,
    plan_line,
    ports_line,
    step_line,
    switches_line,
    top_reasons,
    topology_line,
    workload_line,
)
from advisor.render.wording import customer
from core import links
from rules.models import FabricConfiguration, Reason, Recommendation

__all__ = ["escape", "markdown_to_mrkdwn", "recommendation_blocks"]

HEADER_MAX = 150
TEXT_MAX = 3000
FIELD_MAX = 2000


def escape(text: str) -> str:
    """Text Slack shows as written: `&`, `<` and `>` are control characters in mrkdwn."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


# ------------------------------------------------------------------------- mrkdwn

_FENCE = re.compile(r"```.*?```", re.S)
_CODE = re.compile(r"`[^`\n]+`")
_LINK = re.compile(r"\[([^\[\]\n]+)\]\(\s*<?([^()\s<>]+(?:\([^()\s]*\))?)>?(?:\s+\"[^\"]*\")?\s*\)")
_AUTOLINK = re.compile(r"<((?:https?|mailto):[^<>\s|]+)>")
_HEADING = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+(.+?)[ \t#]*$", re.M)
_BULLET = re.compile(r"^([ \t]*)[-*+][ \t]+", re.M)
_QUOTE = re.compile(r"^([ \t]{0,3})>[ \t]?", re.M)
# An emphasised span is at most SPAN characters: a lazy `.+?` with no end in sight would
# read to the end of the text from every mark, quadratic in a text of many marks.
SPAN = 400
_BOLD_ITALIC = re.compile(rf"\*\*\*(?=\S)(.{{1,{SPAN}}}?)(?<=\S)\*\*\*", re.S)
_BOLD = re.compile(rf"(\*\*|__)(?=\S)(.{{1,{SPAN}}}?)(?<=\S)\1", re.S)
_ITALIC_STAR = re.compile(rf"(?<![*\w])\*(?=[^\s*])([^*\n]{{1,{SPAN}}}?)(?<=[^\s*])\*(?![*\w])")
_STRIKE = re.compile(rf"~~(?=\S)(.{{1,{SPAN}}}?)(?<=\S)~~")
_PLAIN_EMPHASIS = re.compile(rf"(\*\*|__|\*)(?=\S)(.{{1,{SPAN}}}?)(?<=\S)\1")
_HARD_BREAK = re.compile(r"(?<! ) {2,}\n|\\\n")  # a run of spaces from its start: linear
_RULE = re.compile(r"^[ \t]*(?:-{3,}|\*{3,}|_{3,})[ \t]*$", re.M)
_ESCAPED = re.compile(r"\\([\\`*_\[\]()<>~#|!{}+.-])")
_TOKEN = "\x00{}\x00"
_TOKEN_RE = re.compile(r"\x00(\d+)\x00")


def markdown_to_mrkdwn(text: str) -> str:
    """The markdown our renderers write, as Slack mrkdwn.

    `**bold**` -> `*bold*`, `*italic*` -> `_italic_` (`_italic_` stays), `[t](u)` ->
    `<u|t>`, `~~gone~~` -> `~gone~`, `# Heading` -> `*Heading*`, `- item` -> `• item`,
    `> quote` stays, hard line breaks -> plain ones; `&`, `<` and `>` are escaped. Code spans and blocks
    are kept as they are (escaped only), so a rule id in backticks is never reformatted.
    """
    kept: list[str] = []

    def keep(value: str) -> str:
        kept.append(value)
        return _TOKEN.format(len(kept) - 1)

    def link(label: str, url: str) -> str:
        url = url.replace("<", "%3C").replace(">", "%3E").replace("|", "%7C")
        label = _inline(escape(label)).replace("|", "\u2758")
        return keep(f"<{url}|{label}>")

    text = text.replace("\r\n", "\n").replace("\x00", "").replace("\x01", "")
    text = _FENCE.sub(lambda m: keep(escape(m.group(0))), text)
    text = _CODE.sub(lambda m: keep(escape(m.group(0))), text)
    # a backslash-escaped mark (markdown.escape_markdown: what a person typed) is a plain
    # character: never a link, emphasis or heading
    text = _ESCAPED.sub(lambda m: keep(escape(m.group(1))), text)
    text = _LINK.sub(lambda m: link(m.group(1), m.group(2)), text)
    text = _AUTOLINK.sub(lambda m: keep(f"<{m.group(1)}>"), text)
    text = _QUOTE.sub(lambda m: keep("> "), text)
    text = escape(text)
    text = _RULE.sub("\u2015" * 10, text)
    text = _HEADING.sub(lambda m: keep(f"*{_plain_emphasis(m.group(1))}*"), text)
    text = _BULLET.sub(lambda m: f"{m.group(1)}\u2022 ", text)
    text = _inline(text)
    text = _HARD_BREAK.sub("\n", text)
    # tokens may hold tokens (a link inside a heading): restore until none is left
    while _TOKEN_RE.search(text):
        text = _TOKEN_RE.sub(lambda m: kept[int(m.group(1))], text)
    return text


def _inline(text: str) -> str:
    """Emphasis. Bold becomes a private marker first, so the `*` it turns into is not
    read again as a markdown italic."""
    text = _BOLD_ITALIC.sub("\x01_\\1_\x01", text)
    text = _BOLD.sub("\x01\\2\x01", text)
    text = _ITALIC_STAR.sub(r"_\1_", text)
    text = _STRIKE.sub(r"~\1~", text)
    return text.replace("\x01", "*")


def _plain_emphasis(text: str) -> str:
    """A heading is bold already: drop the emphasis marks inside it."""
    return _PLAIN_EMPHASIS.sub(r"\2", text)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "\u2026"


# ------------------------------------------------------------------------- blocks


def recommendation_blocks(
    rec: Recommendation, diagram_url: str | None = None, reasons: int = 4
) -> list[dict[str, Any]]:
    """A recommendation as a Slack Block Kit message.

    A header names the fabric, fields give the figures (fabric, topology, ports per
    server, switches, cables, network cost, cost by category, all-reduce), then the top
    `reasons` rules each with its source, the warnings, links to the topology diagram
    (Slack's image block cannot show SVG), the printable report and the bill of
    materials as CSV, and the id to refer to. Send the markdown summary, through
    `markdown_to_mrkdwn`, as the message's `text`: Slack shows it in notifications.
    """
    rec = customer(rec)
    f, t, perf = rec.fabric, rec.topology, rec.performance
    switch = f" on {f.switch_model}" if f.switch_model else ""
    fields = [
        ("Fabric", f"{f.name}{switch}"),
        ("Topology", topology_line(t)),
        (headline.ports_label(rec), ports_line(rec.ports_per_server) or "none"),
        ("Switches", switches_line(t)),
        ("Cables", cables_line(t)),
        ("Network cost", cost_range(rec.cost.network_usd_low, rec.cost.network_usd_high)),
    ]
    if rec.cost.by_category:
        fields.append(("Cost by category", "\n".join(category_lines(rec.cost))))
    if perf.allreduce_ms is not None:
        fields.append(
            (
                "All-reduce",
                f"about {duration(perf.allreduce_ms)} per gradient synchronisation "
                f"({perf.relative_training_throughput:.0%} of InfiniBand training throughput)"
                + (f"; {step_line(perf.step)}" if perf.step else ""),
            )
        )
    if perf.plan:
        fields.append(("Parallelism plan", plan_line(perf)))
    blocks: list[dict[str, Any]] = [
        _header(f"Recommendation: {f.name}, {TOPOLOGY_NAMES[str(t.kind)]}"),
        _context(f"For {escape(workload_line(rec))}."),
        {
            "type": "section",
            "fields": [_mrkdwn(_clip(f"*{name}*\n{escape(value)}", FIELD_MAX)) for name, value in fields[:10]],
        },
    ]
    if rec.explanation:
        blocks += [{"type": "divider"}, _section("*Why*")]
        for number, reason in enumerate(top_reasons(rec, reasons), 1):
            blocks += _reason_blocks(number, reason)
    for warning in rec.warnings[:5]:
        blocks.append(_section(f":warning: *Check:* {markdown_to_mrkdwn(warning)}"))
    if rec.fabric_configuration:
        blocks += _configuration_blocks(rec.fabric_configuration)
    shown: list[str] = []
    if diagram_url:  # signed when the server has an API key: Slack's browser sends none (core.links)
        shown.append(f"<{_url(links.signed(diagram_url) or diagram_url)}|Topology diagram (SVG)>")
    report, csv = sibling_url(diagram_url, "report"), sibling_url(diagram_url, "bom.csv")
    if report and csv and rec.bill_of_materials:
        shown += [f"<{_url(report)}|Printable report>", f"<{_url(csv)}|Bill of materials (CSV)>"]
    if rec.id:
        shown.append(f"Recommendation id `{escape(rec.id)}`")
    shown.append("Say *why?* for every rule, or *compare* for the alternatives")
    blocks += [{"type": "divider"}, _context(*shown)]
    return blocks


def _configuration_blocks(configuration: FabricConfiguration) -> list[dict[str, Any]]:
    """The fabric's settings (one section, clipped to Slack's limit) and the validation targets."""
    settings = "\n".join(f"• *{escape(s.setting)}:* {escape(s.value)}" for s in configuration.settings)
    blocks = [
        {"type": "divider"},
        _section(f"*Fabric configuration* ({escape(configuration.switch_family)})\n{settings}"),
    ]
    if configuration.validation:
        targets = "\n".join(f"• {escape(s.setting)}: {escape(s.value)}" for s in configuration.validation)
        blocks.append(_section(f"*After cabling, expect*\n{targets}"))
    return blocks


def _reason_blocks(number: int, reason: Reason) -> list[dict[str, Any]]:
    """A reason: its statement, then its source and rule in small print (context)."""
    return [
        _section(f"{number}. {markdown_to_mrkdwn(reason.statement)}"),
        _context(f"Source: {escape(reason.source)}", f"Rule `{escape(reason.rule_id)}`"),
    ]


def _url(url: str) -> str:
    return url.replace("<", "%3C").replace(">", "%3E").replace("|", "%7C")


def _mrkdwn(text: str) -> dict[str, Any]:
    return {"type": "mrkdwn", "text": text}


def _header(text: str) -> dict[str, Any]:
    return {"type": "header", "text": {"type": "plain_text", "text": _clip(text, HEADER_MAX), "emoji": False}}


def _section(text: str) -> dict[str, Any]:
    return {"type": "section", "text": _mrkdwn(_clip(text, TEXT_MAX))}


def _context(*texts: str) -> dict[str, Any]:
    return {"type": "context", "elements": [_mrkdwn(_clip(t, TEXT_MAX)) for t in texts[:10]]}
