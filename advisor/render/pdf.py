"""The quote-ready report as a PDF, rendered on the server by WeasyPrint: `report_pdf(rec)`.

The same HTML as advisor.render.report (one layout, two outputs): WeasyPrint lays it
out on A4 pages with the page numbers and the quote id in the page margins (CSS @page
counters). WeasyPrint needs Debian's pango libraries (libpango-1.0-0,
libpangoft2-1.0-0; `make pdf-libs` installs them when missing); it reads no fonts,
images or styles from the network (the report is self-contained, and a URL fetch is
refused). The API loads WeasyPrint when it starts, so the first PDF is not slower
than the others; the CLI imports this module only for --report-pdf.
"""

from __future__ import annotations

import weasyprint

from advisor.render.report import report_html
from rules.models import Recommendation

__all__ = ["report_pdf"]


def _no_fetch(url: str, *_options: object, **_named: object) -> dict[str, object]:
    """The report carries everything inline; nothing is fetched while printing (WeasyPrint
    calls this with the URL, a time-out, an SSL context and headers)."""
    raise ValueError(f"the report refers to {url}, which a server-side PDF does not fetch")


def report_pdf(rec: Recommendation) -> bytes:
    """The report of rec as PDF bytes."""
    document = weasyprint.HTML(string=report_html(rec), url_fetcher=_no_fetch)
    pdf: bytes | None = document.write_pdf()
    assert pdf is not None  # write_pdf returns the bytes when given no target
    return pdf
