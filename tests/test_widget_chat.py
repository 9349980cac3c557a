"""The web chat widget, end to end, in Debian's headless chromium.

The API (uvicorn) serves the page at `/`; the page talks to the real Rasa server over
socket.io; Rasa calls the real action server; the action server and the API share the
store of recommendations, so the diagram the card shows comes from the API. Playwright
drives the browser installed by apt (`executable_path`), so nothing is downloaded.

Pinned here: a conversation from the greeting to a recommendation card (fabric, switch
counts, cost, reasons with sources, the diagram loaded), quick-reply buttons, the typing
indicator, the history surviving a reload, a knowledge question answered with its
source, and a what-if that brings an updated card. The full conversation saves a
screenshot to var/screenshots/widget.png.
"""

from __future__ import annotations

import io
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import openpyxl
import pypdf
import pytest

from advisor.render.wording import customer_text
from bot import launch
from tests.browsers import playwright_api
from tests.servers import REPO, VENV_BIN, Server, free_port, running

pytestmark = [pytest.mark.browser, pytest.mark.rasa]

expect = playwright_api.expect

REPLY_MS = 45_000
SCREENSHOT = REPO / "var" / "screenshots" / "widget.png"


# --------------------------------------------------------------------- servers


class Stack:
    def __init__(self, api: Server, rasa: Server) -> None:
        self.api = api
        self.rasa = rasa

    @property
    def page_url(self) -> str:
        """The widget, told where Rasa listens (another port of the same host)."""
        return f"{self.api.url}/?rasa={self.rasa.url}"


def knowledge_db(work: Path) -> Path:
    """The knowledge base the API and the actions read (`make kb`'s, else built here)."""
    built = REPO / "var" / "knowledge.db"
    if built.exists():
        return built
    db = work / "knowledge.db"
    subprocess.run(
        [str(VENV_BIN / "python"), "-m", "knowledge", "build", "--db", str(db)],
        cwd=REPO,
        check=True,
        capture_output=True,
        timeout=180,
    )
    return db


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    work = tmp_path_factory.mktemp("widget-stack")
    api_port = free_port()
    api_url = f"http://127.0.0.1:{api_port}"
    shared = {
        "FABRIC_ADVISOR_DB": str(work / "advisor.db"),  # the actions store, the API draws
        "FABRIC_ADVISOR_KB": str(knowledge_db(work)),
        "FABRIC_ADVISOR_PUBLIC_URL": api_url,  # diagram links the browser follows
    }
    with launch.chat_stack(work, env=shared) as chat:
        api_env = {
            **shared,
            **chat.secrets,  # the API signs the widget's session ids with the secret Rasa checks
            "FABRIC_ADVISOR_API_KEY": "",
            "FABRIC_ADVISOR_RASA_PORT": str(chat.rasa.port),
        }
        command = [
            str(VENV_BIN / "python"),
            "-m",
            "uvicorn",
            "api.app:app",
            "--host",
            "127.0.0.1",
            "--port",
            str(api_port),
        ]
        with running(command, port=api_port, health_path="/healthz", env=api_env) as api:
            yield Stack(api, chat.rasa)


@pytest.fixture
def page(browser, stack: Stack) -> Iterator[object]:
    """A fresh tab (its own sessionStorage: a new conversation), connected to Rasa."""
    context = browser.new_context(viewport={"width": 1280, "height": 1400})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(stack.page_url)
    expect(page.locator("#status")).to_have_attribute("data-state", "online", timeout=30_000)
    yield page
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


# --------------------------------------------------------------------- helpers


def say(page, text: str) -> None:
    page.fill("#message", text)
    page.press("#message", "Enter")


def bot_says(page, pattern: str | re.Pattern) -> object:
    """The latest bot message matching pattern, once it is there."""
    message = page.locator(".msg--bot .bubble--bot").filter(has_text=pattern).last
    expect(message).to_be_visible(timeout=REPLY_MS)
    return message


def cards(page) -> object:
    return page.locator("article.card")


def wait_for_cards(page, count: int) -> object:
    expect(cards(page)).to_have_count(count, timeout=REPLY_MS)
    card = cards(page).nth(count - 1)
    card.scroll_into_view_if_needed()
    return card


def stored(stack: Stack, card) -> dict:
    """The recommendation the card shows, as the API serves it."""
    rec_id = card.get_attribute("data-recommendation-id")
    assert rec_id, "the card carries no recommendation id"
    response = httpx.get(f"{stack.api.url}/v1/recommendations/{rec_id}", timeout=30)
    assert response.status_code == 200, response.text
    body = response.json()
    return body.get("recommendation", body)


def assert_card_shows(card, rec: dict) -> None:
    """Fabric, switch counts, cost, ports, reasons with sources, a loaded diagram."""
    topology = rec["topology"]
    expect(card.locator(".card__title")).to_have_text(rec["fabric"]["name"])
    total = topology["leaf_switches"] + topology["spine_switches"] + topology["core_switches"]
    if topology["kind"] != "single_node":
        expect(card.locator('[data-field="switches"] .kpi__value')).to_have_text(f"{total:,}")
        expect(card.locator('[data-field="switches"] .kpi__note')).to_contain_text(
            f"{topology['leaf_switches']:,} leaf"
        )
    expect(card.locator('[data-field="cost"] .kpi__value')).to_contain_text("$")
    expect(card.locator('[data-field="fabric"]')).to_contain_text(rec["fabric"]["name"])
    expect(card.locator('[data-field="topology"]')).not_to_be_empty()
    compute = [p for p in rec["ports_per_server"] if p["role"] == "compute" and p["count"]]
    if compute:
        expect(card.locator('[data-field="ports"]')).to_contain_text(
            f"{compute[0]['count']} × {compute[0]['gbps']}G compute"
        )

    if rec["bill_of_materials"]:
        biggest = max(rec["cost"]["by_category"], key=lambda part: part["usd_high"])
        names = {"switch": "switches", "transceiver": "optics", "cable": "cables", "fibre": "fibre", "spare": "spares"}
        expect(card.locator('[data-field="cost-categories"]')).to_contain_text(
            names.get(biggest["name"], biggest["name"])
        )
        expect(card.locator('[data-field="cost-networks"]')).to_contain_text("compute fabric")
        expect(card.locator('a[data-field="report"]')).to_have_attribute(
            "href", re.compile(rf"/v1/recommendations/{rec['id']}/report$")
        )
        expect(card.locator('a[data-field="bom-csv"]')).to_have_attribute(
            "href", re.compile(rf"/v1/recommendations/{rec['id']}/bom\.csv$")
        )

    reasons = card.locator(".card__why > .reasons > li")
    expect(reasons).to_have_count(min(4, len(rec["explanation"])))
    for i, reason in enumerate(rec["explanation"][:4]):
        # the widget, like every renderer, names sources as a customer reads them
        expect(reasons.nth(i).locator(".source")).to_contain_text(f"Source: {customer_text(reason['source'])}")
        expect(reasons.nth(i).locator(".rule-id")).to_have_text(reason["rule_id"])

    diagram = card.locator('img[data-field="diagram"]')
    expect(diagram).to_have_attribute("src", re.compile(rf"/v1/recommendations/{rec['id']}/diagram\.svg$"))
    diagram.scroll_into_view_if_needed()
    card.page.wait_for_function(
        "img => img.complete && img.naturalWidth > 0", arg=diagram.element_handle(), timeout=REPLY_MS
    )


# ----------------------------------------------------------------------- tests


def test_the_api_serves_the_page_and_its_libraries_locally(stack: Stack) -> None:
    page = httpx.get(stack.api.url + "/", timeout=10)
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    scripts = re.findall(r'<script src="([^"]+)"', page.text)
    assert all(src.startswith("/") for src in scripts), f"a script from elsewhere: {scripts}"
    for src in [s for s in scripts if s.startswith("/static/")] + ["/static/widget.css"]:
        assert httpx.get(stack.api.url + src, timeout=10).status_code == 200, src


def test_a_conversation_from_greeting_to_a_recommendation_card(page, stack: Stack) -> None:
    say(page, "hello")
    bot_says(page, "Fabric Advisor")

    # the typing indicator shows from the moment a message is sent
    page.fill("#message", "I need a network recommendation")
    typing_hidden = page.evaluate(
        "() => { document.getElementById('composer').requestSubmit();"
        " return document.getElementById('typing').hidden; }"
    )
    assert typing_hidden is False
    replies = page.locator(".quick-replies").last
    expect(replies).to_be_visible(timeout=REPLY_MS)
    expect(page.locator("#typing")).to_be_hidden()

    # a quick reply sends its payload and shows its title as the user's message
    replies.get_by_role("button", name="Training").click()
    expect(page.locator(".msg--user .bubble--user").last).to_have_text("Training")
    expect(page.locator(".quick-replies")).to_have_count(0)
    bot_says(page, re.compile("How many GPUs", re.I))

    say(page, "128 H100s")
    card = wait_for_cards(page, 1)
    rec = stored(stack, card)
    assert rec["profile"]["gpu_count"] == 128 and rec["profile"]["workload"] == "training"
    assert_card_shows(card, rec)

    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    page.evaluate(
        "() => { const s = document.getElementById('scroller'); const c = [...document.querySelectorAll('.msg--card')].pop();"
        " s.scrollTop = c.offsetTop - 260; }"
    )
    page.screenshot(path=str(SCREENSHOT))
    assert SCREENSHOT.stat().st_size > 20_000

    # a reload keeps the conversation: same messages, same card
    shown = page.locator("#log > .msg").count()
    page.reload()
    expect(page.locator("#status")).to_have_attribute("data-state", "online", timeout=30_000)
    expect(page.locator("#log > .msg")).to_have_count(shown)
    expect(cards(page)).to_have_count(1)
    # ... and the same Rasa conversation: "why?" explains the recommendation shown
    say(page, "why?")
    bot_says(page, rec["explanation"][0]["rule_id"])


def test_a_knowledge_question_is_answered_with_its_source(page) -> None:
    say(page, "what is PFC?")
    answer = bot_says(page, "Source:")
    expect(answer).to_contain_text(re.compile(r"PFC|Priority Flow Control", re.I))
    assert answer.locator("em, i").filter(has_text="Source:").count() >= 1, "the source is not set apart"
    expect(cards(page)).to_have_count(0)

    # "New conversation" clears the page and starts another Rasa session
    session = page.evaluate("() => JSON.parse(sessionStorage.getItem('fabric-advisor.chat.v1')).sessionId")
    page.get_by_role("button", name="New conversation").click()
    expect(page.locator("#log > .msg")).to_have_count(0)
    expect(page.locator("#welcome")).to_be_visible()
    page.wait_for_function(
        "old => { const s = JSON.parse(sessionStorage.getItem('fabric-advisor.chat.v1')); return s.sessionId && s.sessionId !== old; }",
        arg=session,
        timeout=REPLY_MS,
    )


def test_a_what_if_brings_an_updated_card(page, stack: Stack) -> None:
    say(page, "We will train a 70B model on 128 H100s")
    first = wait_for_cards(page, 1)
    before = stored(stack, first)
    assert before["profile"]["gpu_count"] == 128

    say(page, "what about 256 GPUs?")
    second = wait_for_cards(page, 2)
    after = stored(stack, second)
    assert after["profile"]["gpu_count"] == 256
    assert after["id"] != before["id"]
    expect(second.locator(".card__subtitle")).to_contain_text("256")
    bot_says(page, "What changed")
    assert_card_shows(second, after)


def test_plain_requests_after_a_design_and_its_quick_replies(page, stack: Stack) -> None:
    """The chat verbs (advisor.answers.verbs, decided by the understanding /v1/ask uses): a quick
    reply asks for the bill of materials, whose lines and files come back; "how many
    racks?" counts racks, not servers; a PDF is a link to the report; 800G on H100 is
    refused with why and which platform can, 200G applied."""
    say(page, "We will train a 70B model on 128 H100s")
    rec = stored(stack, wait_for_cards(page, 1))
    next_steps = page.locator(".quick-replies").last
    expect(next_steps).to_be_visible(timeout=REPLY_MS)
    for title in ("Download BOM", "Printable report", "Compare", "Why"):
        expect(next_steps.get_by_role("button", name=title)).to_be_visible()

    next_steps.get_by_role("button", name="Download BOM").click()
    expect(page.locator(".msg--user .bubble--user").last).to_have_text("Download BOM")
    bom = bot_says(page, "Bill of materials:")
    switch = next(line for line in rec["bill_of_materials"] if line["category"] == "switch")
    expect(bom).to_contain_text(switch["part_number"])
    csv_link = bom.locator("a", has_text="Bill of materials (CSV)")
    expect(csv_link).to_have_attribute("href", re.compile(rf"/v1/recommendations/{rec['id']}/bom\.csv$"))
    csv = httpx.get(csv_link.get_attribute("href") or "", timeout=30)
    assert csv.status_code == 200 and switch["part_number"] in csv.text
    expect(bom.locator("a", has_text="Spreadsheet (XLSX")).to_have_attribute("href", re.compile(r"/bom\.xlsx$"))

    say(page, "how many racks?")
    expect(bot_says(page, "Racks:")).to_contain_text("5 in all: 4 for the GPU servers")

    say(page, "can I get this as a PDF?")
    report = bot_says(page, "Printable report:")
    expect(report.locator("a", has_text="Report (PDF)")).to_have_attribute("href", re.compile(r"/report\.pdf$"))

    say(page, "what if we use 800G?")
    refused = bot_says(page, "Not applied")
    expect(refused).to_contain_text("ConnectX-7 NICs run at most 400 Gb/s")
    expect(refused).to_contain_text("GB300 NVL72 (ConnectX-8)")
    expect(cards(page)).to_have_count(1)  # the design stays

    # a speed the NICs do run is applied: a new design at 200G (HDR InfiniBand)
    say(page, "what if we use 200G links?")
    slower = stored(stack, wait_for_cards(page, 2))
    assert slower["profile"]["link_gbps"] == 200 and slower["fabric"]["link_gbps"] == 200
    expect(cards(page).nth(1).locator(".card__title")).to_contain_text("HDR")


def fetch_file(page, link, name: str) -> bytes:
    """The file a link in the chat points at, fetched by the browser's own context (its
    cookies and origin), as a download with the design's id in its name."""
    href = link.get_attribute("href") or ""
    response = page.request.get(href)
    assert response.status == 200, f"{href}: {response.status}"
    assert re.search(rf'attachment; filename="r_\w+-{re.escape(name)}"', response.headers["content-disposition"])
    return response.body()


def test_every_quick_reply_and_the_spreadsheet_and_pdf_they_link(page, stack: Stack) -> None:
    """Each quick reply after a design, clicked (Download BOM is clicked above): the
    printable report, whose PDF opens with the quote id, date and fabric; Compare; Why.
    The spreadsheet asked for in words opens as a workbook with the design's parts."""
    say(page, "We will train a 70B model on 128 H100s")
    rec = stored(stack, wait_for_cards(page, 1))

    say(page, "can I have the parts list as an Excel spreadsheet?")
    files = bot_says(page, "Bill of materials:")
    workbook = fetch_file(page, files.locator("a", has_text="Spreadsheet (XLSX"), "bom.xlsx")
    book = openpyxl.load_workbook(io.BytesIO(workbook))
    assert book.sheetnames == ["summary", "compute", "storage", "in_band", "out_of_band"]
    summary = {row[0]: row[1:] for row in book["summary"].iter_rows(values_only=True) if row[0]}
    assert summary["Fabric Advisor quote"][0] == "Q-" + rec["id"].removeprefix("r_").upper()
    compute = [row[1] for row in book["compute"].iter_rows(min_row=2, values_only=True)]
    assert {line["part_number"] for line in rec["bill_of_materials"] if line["fabric"] == "compute"} <= set(compute)

    # the quick replies of the last design: typing the spreadsheet request answered them,
    # so a what-if brings a new design and its quick replies
    say(page, "what about 256 GPUs?")
    second = stored(stack, wait_for_cards(page, 2))
    page.locator(".quick-replies").last.get_by_role("button", name="Printable report").click()
    expect(page.locator(".msg--user .bubble--user").last).to_have_text("Printable report")
    report = bot_says(page, "Printable report:")
    pdf = fetch_file(page, report.locator("a", has_text="Report (PDF)"), "report.pdf")
    assert pdf.startswith(b"%PDF-")
    text = " ".join(" ".join(sheet.extract_text() for sheet in pypdf.PdfReader(io.BytesIO(pdf)).pages).split())
    assert "Q-" + second["id"].removeprefix("r_").upper() in text and second["quote"]["issued"] in text
    assert second["fabric"]["name"] in text and "256" in text

    say(page, "what about 512 GPUs?")
    third = stored(stack, wait_for_cards(page, 3))
    page.locator(".quick-replies").last.get_by_role("button", name="Compare").click()
    compared = bot_says(page, "Fabrics compared")
    expect(compared).to_contain_text(third["fabric"]["name"])
    for alternative in third["alternatives"][:2]:
        expect(compared).to_contain_text(alternative["name"])

    say(page, "what about 1024 GPUs?")
    fourth = stored(stack, wait_for_cards(page, 4))
    page.locator(".quick-replies").last.get_by_role("button", name="Why").click()
    bot_says(page, fourth["explanation"][0]["rule_id"])


def test_the_handoff_form_offers_cancel_and_cancelling_sends_nothing(page, stack: Stack) -> None:
    say(page, "I want to talk to an engineer")
    bot_says(page, "network engineer")
    page.locator(".quick-replies").last.get_by_role("button", name="Yes, please").click()
    bot_says(page, "What is your name?")
    page.locator(".quick-replies").last.get_by_role("button", name="Cancel").click()
    expect(page.locator(".msg--user .bubble--user").last).to_have_text("Cancel")
    bot_says(page, "OK, cancelled: no request was recorded and nothing was sent to an engineer")
    expect(page.locator(".quick-replies")).to_have_count(0)
    # the next message is a question again, not a name for the form
    say(page, "what is PFC?")
    bot_says(page, "Source:")


def test_what_people_type_is_shown_as_text_never_as_html(page) -> None:
    say(page, '<img src=x onerror="window.pwned=1"> **not bold**')
    mine = page.locator(".msg--user .bubble--user").last
    expect(mine).to_have_text('<img src=x onerror="window.pwned=1"> **not bold**')
    assert mine.locator("img, strong").count() == 0
    bot_says(page, re.compile(r"\w"))  # whatever the bot answers, the page stays clean
    assert page.evaluate("() => window.pwned || null") is None


# a phone's width (iPhone 12-15: 390 CSS px); everything must fit without a sideways scroll
PHONE = {"width": 390, "height": 844}

# elements reaching past the screen's edge, whether the page scrolls sideways or a box
# clips them (text cut off is as bad); only a table's own scroll box may be wider
_OVERFLOWING = """() => {
  const width = document.documentElement.clientWidth;
  return [...document.querySelectorAll('body *')].filter(el => {
    const r = el.getBoundingClientRect();
    return r.width > 0 && (r.right > width + 1 || r.left < -1) && !el.closest('.table-wrap');
  }).map(el => el.tagName + '.' + el.className);
}"""


def test_the_widget_fits_a_phone_and_names_sources_as_a_customer_reads_them(browser, stack: Stack) -> None:
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    try:
        page = context.new_page()
        page.goto(stack.page_url)
        expect(page.locator("#status")).to_have_attribute("data-state", "online", timeout=30_000)
        say(page, "We will train a 70B model on 128 H100s")
        card = wait_for_cards(page, 1)
        card.locator("details.more").first.locator("summary").click()  # opened sections must fit too
        assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
        scroller = page.evaluate(
            "() => [document.getElementById('scroller').scrollWidth, document.getElementById('scroller').clientWidth]"
        )
        assert scroller[0] <= scroller[1], f"the conversation scrolls sideways: {scroller}"
        assert page.evaluate(_OVERFLOWING) == []
        # the composer stays below the conversation, never over it
        log = page.locator("#scroller").bounding_box()
        composer = page.locator("#composer").bounding_box()
        assert log and composer and composer["y"] >= log["y"] + log["height"] - 1
        sources = " ".join(card.locator(".source").all_inner_texts())
        assert sources and "GPU Server Networking" in sources
        assert not re.search(r"\bseed\b|\w+/[\w/]+\.(?:py|ya?ml)\b", sources, re.I), sources
    finally:
        context.close()
