"""What a customer reads names its sources by title and publisher: every renderer's
output for a spread of designs (InfiniBand H100, RoCE, GB200, MI300X, L40S inference)
carries no "seed", no file of ours and no path into the rules or the knowledge base:
markdown (chat, API), Slack blocks, the diagram, the report as a web page and as the
PDF WeasyPrint prints (read back with pypdf), the BOM as CSV and XLSX, the cabling plan,
what the widget's card is sent, the chat's replies to its verbs (BOM, report, racks) and
the CLI's text."""

from __future__ import annotations

import io
import json
import re

import openpyxl
import pypdf
import pytest
from rich.console import Console

from advisor.answers import verbs
from advisor.designs import recommendations
from advisor.models import Answer
from advisor.render import markdown, slack, terminal
from advisor.render.bom import bom_csv
from advisor.render.cabling import cabling_build, cabling_csv
from advisor.render.pdf import report_pdf
from advisor.render.report import report_html
from advisor.render.svg import topology_svg
from advisor.render.wording import GUIDE_TITLE, customer, customer_text
from advisor.render.xlsx import bom_xlsx
from rules.models import Recommendation, WorkloadProfile
from tests.marks import slow_unless_quick

FORBIDDEN = ("seed", "Seed", ".yaml", "knowledge/", "rules/")
# a path to a file of ours ("rules/facts.yaml", "/work/x/advisor/quote.py"), not a link's
# path (every "/" of a URL follows a "/" or a ":")
FILE_PATH = re.compile(r"(?<![\w/:.-])(?:/?[\w.-]+/)+[\w.-]+\.(?:py|ya?ml|json|db|npz|toml|csv|md)\b")

DESIGNS = {
    "H100 InfiniBand": {"workload": "training", "gpu_count": 128, "gpu_model": "H100", "model_params_b": 70},
    "RoCE": {"workload": "training", "gpu_count": 512, "gpu_model": "H100", "prefer": "rocev2"},
    "GB200": {"workload": "training", "gpu_count": 144, "gpu_model": "GB200"},
    "MI300X": {"workload": "training", "gpu_count": 64, "gpu_model": "MI300X"},
    "L40S inference": {"workload": "inference", "node_count": 16, "gpu_model": "L40S", "cost_sensitive": True},
}


def design(profile: dict) -> Recommendation:
    complete = recommendations.complete_profile(WorkloadProfile.model_validate(profile))
    return recommendations.recommend(complete, save=False).model_copy(update={"id": "r_0123456789ab"})


def terminal_text(rec: Recommendation) -> str:
    console = Console(file=io.StringIO(), width=200, record=True)
    terminal.print_view(terminal.recommendation_view(rec, "http://127.0.0.1/x/diagram.svg"), console)
    terminal.print_view(terminal.bom_view(rec, 80), console)
    return console.export_text()


def xlsx_text(rec: Recommendation) -> str:
    book = openpyxl.load_workbook(io.BytesIO(bom_xlsx(rec)))
    return "\n".join(
        str(value) for sheet in book for row in sheet.iter_rows(values_only=True) for value in row if value is not None
    )


def pdf_text(rec: Recommendation) -> str:
    return "\n".join(page.extract_text() for page in pypdf.PdfReader(io.BytesIO(report_pdf(rec))).pages)


def cabling_text(rec: Recommendation) -> str:
    build = cabling_build(rec)
    return "".join(cabling_csv(build)) if build is not None else ""


def widget_payload(rec: Recommendation) -> str:
    """What bot/actions/output.py sends the web widget to draw its card from."""
    return customer(rec).model_dump_json(exclude={"bill_of_materials"})


RENDERERS = {
    "markdown": lambda rec: "\n".join(
        [markdown.recommendation_markdown(rec), markdown.why_markdown(rec), markdown.compare_markdown(rec)]
    ),
    "slack": lambda rec: json.dumps(slack.recommendation_blocks(rec, "https://example.test/diagram.svg")),
    "svg": topology_svg,
    "report html": report_html,
    "report pdf": pdf_text,
    "csv": bom_csv,
    "xlsx": xlsx_text,
    "cli text": terminal_text,
    "cabling csv": cabling_text,
    "widget card": widget_payload,
    # the chat's replies to "show me the BOM", "can I get this as a PDF?", "how many racks?"
    "chat verbs": lambda rec: "\n".join(
        line for topic in ("bom", "report", "racks") for line in verbs.design_lines(rec, topic)
    ),
}


@pytest.fixture(scope="module")
def designs() -> dict[str, Recommendation]:
    return {name: design(profile) for name, profile in DESIGNS.items()}


def test_the_internal_sources_are_there_to_be_rewritten(designs: dict[str, Recommendation]) -> None:
    """The designs do carry the internal names (else the scan below proves nothing)."""
    raw = "".join(rec.model_dump_json() for rec in designs.values())
    assert "Seed guide" in raw and "knowledge/sources/pricebook.yaml" in raw


#: WeasyPrint lays out every design's report: 11 s, so only make test prints it
SLOW_RENDERERS = {"report pdf"}


@pytest.mark.parametrize("renderer", slow_unless_quick(RENDERERS, set(RENDERERS) - set(SLOW_RENDERERS)))
def test_no_renderer_shows_a_customer_our_internal_names(designs: dict[str, Recommendation], renderer: str) -> None:
    for name, rec in designs.items():
        text = RENDERERS[renderer](rec)
        found = [word for word in FORBIDDEN if word in text] + FILE_PATH.findall(text)
        assert not found, f"{renderer} of {name} shows {found}: ...{text[text.find(found[0]) - 80 :][:200]}..."


def test_the_guide_is_named_by_its_title_and_publisher(designs: dict[str, Recommendation]) -> None:
    html = report_html(designs["RoCE"])
    assert GUIDE_TITLE in html and "DCS Global" in html
    assert "the Fabric Advisor price book" in report_html(designs["H100 InfiniBand"])


def test_an_answer_is_rewritten_the_same_way() -> None:
    answer = Answer(text="PFC pauses a priority.", topic="PFC", subject="glossary", source="Seed guide, 'PFC'")
    text = markdown.answer_markdown(answer)
    assert "eed" not in text and GUIDE_TITLE in text
    assert customer_text("plain text stays") == "plain text stays"
