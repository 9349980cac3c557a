"""`fabric-advisor`: the command line for sales engineers.

Same functions as the API and the chat (advisor.designs.recommendations, advisor.service,
knowledge); this module only parses flags and prints. Each command imports what it
needs when it runs, so `size` starts without the rules engine, `recommend` without
spaCy, FastAPI, WeasyPrint or openpyxl (unless asked for a PDF or a workbook), and only
`ask` loads spaCy, under a spinner on stderr when stderr is a terminal (tests/test_cli.py
checks; `make bench` prints the time to the design's first line). `ask` renders its
answer's markdown for a terminal and prints it as plain text (no marks, lines unwrapped)
into a pipe or a file. Help is plain text that wraps at the terminal's
width, so no flag is cut at 80 columns. Bad input is one line on stderr, naming the
flag to fix, and exit code 2, never a traceback.
"""

from __future__ import annotations

import re
import sys
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from pydantic import BaseModel, ValidationError

from rules.models import FloorSettings, Preference, ProfileDraft, Workload, WorkloadProfile

if TYPE_CHECKING:
    from rich.console import Console

    from advisor.designs.quote import QuoteTerms
    from rules.models import Recommendation

app = typer.Typer(
    help="Fabric Advisor: how to network a GPU cluster, explained.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    rich_markup_mode=None,  # click's plain help: wraps descriptions, never cuts a flag
)
kb_app = typer.Typer(help="The knowledge base.", no_args_is_help=True, rich_markup_mode=None)
app.add_typer(kb_app, name="kb")

#: The flag of each field a message may name, so an error says what to type.
FLAGS = {
    "gpu_count": "--gpus",
    "node_count": "--nodes",
    "gpus_per_node": "--gpus-per-node",
    "gpu_model": "--gpu-model",
    "model_params_b": "--params-b",
    "budget_usd": "--budget-usd",
    "network_budget_usd": "--network-budget-usd",
    "cost_sensitive": "--cost-sensitive",
    "existing_ethernet": "--existing-ethernet",
    "message_gb": "--message-gb",
    "active_params_b": "--active-params-b",
    "tokens_per_step": "--tokens-per-step",
    "oversubscription": "--oversubscription",
    "zone_gpus": "--zone-gpus",
    "prepared_for": "--prepared-for",
    "discount_pct": "--discount-pct",
    "prices": "--prices",
    "question": "QUESTION",
    "tp": "--tp",
    "pp": "--pp",
    "moe": "--moe",
    "link_gbps": "--link-speed",
    "prefer": "--prefer",
    "workload": "--workload",
    "name": "--name",
    "email": "--email",
    "company": "--company",
    "message": "--message",
    "recommendation_id": "--design",
    "servers_per_rack": "--servers-per-rack",
    "rack_kw": "--rack-kw",
    "racks_per_row": "--racks-per-row",
}
_FIELD = re.compile(r"\b(" + "|".join(sorted((f for f in FLAGS if "_" in f), key=len, reverse=True)) + r")\b")


class UserError(Exception):
    """Input the user can fix; printed as one line with exit code 2."""


def _console() -> Console:
    from rich.console import Console

    return Console()


def _spinner(message: str) -> AbstractContextManager[object]:
    """A spinner on stderr while a slow step runs (so `ask --json > file` stays clean
    JSON), only when stderr is a terminal: a log or a pipe gets no spinner frames."""
    if not sys.stderr.isatty():
        return nullcontext()
    from rich.console import Console

    return Console(stderr=True).status(message, spinner="dots")


def _validation_line(exc: ValidationError) -> str:
    """The first problem, with field names replaced by the flags that set them."""
    first = exc.errors()[0]
    flagged = [str(p) for p in first["loc"] if str(p) in FLAGS]  # ("floor", "rack_kw") is --rack-kw
    field = flagged[-1] if flagged else ".".join(str(p) for p in first["loc"])
    message = first["msg"].removeprefix("Value error, ")
    head, colon, rest = message.partition(": ")
    if colon and head in FLAGS:  # the message names its field first ("gpu_count: must be ...")
        field, message = head, rest
    message = _FIELD.sub(lambda m: FLAGS[m.group(1)], message)
    return f"{FLAGS.get(field, field)}: {message}" if field else message


def _json(model: BaseModel) -> None:
    print(model.model_dump_json(indent=2))


def _read_prices(path: Path) -> dict[str, float]:
    """A customer's price list: a CSV of part number and unit price (USD) per row; a
    header row and a $ or thousands separators are allowed."""
    import csv

    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise UserError(f"--prices: cannot read {path}: {exc.strerror or exc}") from None
    prices: dict[str, float] = {}
    for number, row in enumerate(csv.reader(text.splitlines()), 1):
        cells = [cell.strip() for cell in row if cell.strip()]
        if not cells:
            continue
        if len(cells) < 2:
            raise UserError(f"--prices: {path}, line {number}: need a part number and a unit price")
        amount = cells[1].replace("$", "").replace(",", "").strip()
        try:
            prices[cells[0]] = float(amount)
        except ValueError:
            if number == 1:
                continue  # a header row
            raise UserError(f"--prices: {path}, line {number}: {cells[1]!r} is not a price in USD") from None
    if not prices:
        raise UserError(f"--prices: {path} has no part number and price rows")
    return prices


def _terms(prepared_for: str | None, prices: Path | None, discount_pct: float | None) -> QuoteTerms:
    from advisor.designs.quote import QuoteTerms

    try:
        return QuoteTerms(
            prepared_for=prepared_for,
            prices=_read_prices(prices) if prices is not None else {},
            discount_pct=discount_pct or 0,
        )
    except ValidationError as exc:
        raise UserError(_validation_line(exc)) from None


def _write(path: Path, flag: str, content: bytes | str) -> None:
    try:
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8", newline="")
    except OSError as exc:
        raise UserError(f"{flag}: cannot write {path}: {exc.strerror or exc}") from None


def _exports(rec: Recommendation, bom_csv: Path | None, bom_xlsx: Path | None, report_pdf: Path | None) -> list[str]:
    """Write the files asked for; what was written, one line each."""
    written = []
    if bom_csv is not None:
        from advisor.render import bom as bom_render

        _write(bom_csv, "--bom-csv", bom_render.bom_csv(rec))
        written.append(f"Bill of materials written to {bom_csv} ({len(rec.bill_of_materials)} lines).")
    if bom_xlsx is not None:
        from advisor.render.xlsx import bom_xlsx as workbook

        _write(bom_xlsx, "--bom-xlsx", workbook(rec))
        written.append(f"Bill of materials workbook written to {bom_xlsx} (a summary and a sheet per network).")
    if report_pdf is not None:
        from advisor.render.pdf import report_pdf as pdf

        _write(report_pdf, "--report-pdf", pdf(rec))
        written.append(f"Report written to {report_pdf}.")
    return written


@app.command()
def recommend(
    workload: Annotated[Workload, typer.Option(help="training, inference or mixed.")],
    gpus: Annotated[int | None, typer.Option("--gpus", help="Total GPUs.")] = None,
    gpus_per_node: Annotated[int | None, typer.Option(help="GPUs per server.")] = None,
    nodes: Annotated[int | None, typer.Option("--nodes", help="Number of GPU servers.")] = None,
    gpu_model: Annotated[str | None, typer.Option(help="GPU model, e.g. H100.")] = None,
    params_b: Annotated[float | None, typer.Option("--params-b", help="Model size, billions of parameters.")] = None,
    budget_usd: Annotated[float | None, typer.Option(help="Total cluster budget, USD.")] = None,
    network_budget_usd: Annotated[float | None, typer.Option(help="Budget for the network alone, USD.")] = None,
    cost_sensitive: Annotated[
        bool | None,
        typer.Option("--cost-sensitive/--not-cost-sensitive", help="Cost matters more than the last 10-20 % of speed."),
    ] = None,
    existing_ethernet: Annotated[
        bool | None,
        typer.Option("--existing-ethernet/--no-existing-ethernet", help="The site already runs high-speed Ethernet."),
    ] = None,
    prefer: Annotated[
        Preference | None,
        typer.Option(metavar="FABRIC", help="A preferred fabric: " + ", ".join(p.value for p in Preference) + "."),
    ] = None,
    link_speed: Annotated[
        int | None,
        typer.Option(
            "--link-speed",
            metavar="GBPS",
            help="Compute link speed, Gb/s: 100, 200, 400 or 800 (default: the fastest the NICs carry).",
        ),
    ] = None,
    tp: Annotated[int | None, typer.Option("--tp", help="Tensor-parallel degree (default: as memory needs).")] = None,
    pp: Annotated[int | None, typer.Option("--pp", help="Pipeline-parallel stages (default: as memory needs).")] = None,
    message_gb: Annotated[
        float | None,
        typer.Option("--message-gb", help="All-reduce message per GPU, GB, as nccl-tests sizes it; bypasses the plan."),
    ] = None,
    moe: Annotated[
        bool | None, typer.Option("--moe/--dense", help="A mixture-of-experts model (adds its all-to-all).")
    ] = None,
    active_params_b: Annotated[
        float | None, typer.Option("--active-params-b", help="Active parameters per token, billions (MoE).")
    ] = None,
    tokens_per_step: Annotated[
        int | None, typer.Option("--tokens-per-step", help="Tokens per optimizer step (global batch).")
    ] = None,
    oversubscription: Annotated[
        str | None,
        typer.Option(
            "--oversubscription",
            metavar="N:1",
            help="Oversubscription above the AI zones, e.g. 7:1 (or 7); default 1:1, non-blocking.",
        ),
    ] = None,
    zone_gpus: Annotated[
        int | None, typer.Option("--zone-gpus", help="GPUs per non-blocking AI zone (default: the largest).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the Recommendation as JSON.")] = False,
    bom: Annotated[bool, typer.Option("--bom", help="Also print the bill of materials.")] = False,
    bom_csv: Annotated[
        Path | None, typer.Option("--bom-csv", help="Write the bill of materials to this CSV file.", metavar="FILE")
    ] = None,
    cabling_csv: Annotated[
        Path | None,
        typer.Option(
            "--cabling-csv",
            help="Write the cabling plan (compute, storage, in-band, out-of-band) to this CSV file.",
            metavar="FILE",
        ),
    ] = None,
    servers_per_rack: Annotated[
        int | None, typer.Option("--servers-per-rack", help="Servers per compute rack (default: the RA's).")
    ] = None,
    rack_kw: Annotated[float | None, typer.Option("--rack-kw", help="Power a compute rack takes, kW.")] = None,
    racks_per_row: Annotated[
        int | None, typer.Option("--racks-per-row", help="Racks per row, its leaf network rack included.")
    ] = None,
    bom_xlsx: Annotated[
        Path | None,
        typer.Option("--bom-xlsx", help="Write the bill of materials to this Excel workbook.", metavar="FILE"),
    ] = None,
    report_pdf: Annotated[
        Path | None, typer.Option("--report-pdf", help="Write the quote-ready report to this PDF.", metavar="FILE")
    ] = None,
    prepared_for: Annotated[
        str | None, typer.Option("--prepared-for", help="Who the quote is for (on the report).", metavar="NAME")
    ] = None,
    prices: Annotated[
        Path | None,
        typer.Option(
            "--prices", help="The customer's price list: CSV of part number, unit price (USD).", metavar="FILE.csv"
        ),
    ] = None,
    discount_pct: Annotated[
        float | None, typer.Option("--discount-pct", help="Discount on the network, %.", metavar="PCT")
    ] = None,
) -> None:
    """Recommend a fabric, topology, ports, switches and cost for a workload."""
    from advisor.designs import recommendations  # the rules engine: rule-engine's parser takes ~1 s to import

    try:
        profile = recommendations.complete_profile(
            WorkloadProfile(
                workload=workload,
                gpu_count=gpus,
                gpus_per_node=gpus_per_node,
                node_count=nodes,
                gpu_model=gpu_model,
                model_params_b=params_b,
                budget_usd=budget_usd,
                network_budget_usd=network_budget_usd,
                cost_sensitive=cost_sensitive,
                existing_ethernet=existing_ethernet,
                prefer=prefer,
                tp=tp,
                pp=pp,
                message_gb=message_gb,
                moe=moe,
                link_gbps=link_speed,
                active_params_b=active_params_b,
                tokens_per_step=tokens_per_step,
                oversubscription=oversubscription,  # "7:1" is read by the model
                zone_gpus=zone_gpus,
                floor=_floor(servers_per_rack, rack_kw, racks_per_row),
            )
        )
    except ValidationError as exc:
        raise UserError(_validation_line(exc)) from None
    # the design's first line as soon as the engine has it (before the quote and the
    # store), unless files are written first: one that cannot be is the only output then
    early = not as_json and all(path is None for path in (bom_csv, bom_xlsx, report_pdf, cabling_csv))
    rec = recommendations.recommend(
        profile, terms=_terms(prepared_for, prices, discount_pct), on_design=_print_title if early else None
    )
    written = _exports(rec, bom_csv, bom_xlsx, report_pdf)
    if cabling_csv is not None:
        _write_cabling(rec, cabling_csv)
        written.append(f"Cabling plan written to {cabling_csv}.")
    if as_json:
        _json(rec)
        return
    _print_design(rec, bom, written, titled=early)


def _print_title(rec: Recommendation) -> None:
    """The design's first line, plain text, flushed: shown before rich and the renderers
    load (~0.1 s) for the rest."""
    from advisor.render import headline

    print(headline.title(rec), flush=True)


def _print_design(rec: Recommendation, bom: bool, written: list[str], titled: bool = False) -> None:
    """The design for a person: its first line (unless `titled`: printed already), then
    the rest with rich and the renderers."""
    if not titled:
        _print_title(rec)
    from advisor.render import terminal
    from core.settings import settings

    out = _console()
    terminal.print_view(terminal.recommendation_view(rec, settings.diagram_url(rec.id), titled=False), out)
    if bom:
        terminal.print_view(terminal.bom_view(rec, out.width), out)
    for line in written:
        out.print(line, markup=False, highlight=False)


def _floor(servers_per_rack: int | None, rack_kw: float | None, racks_per_row: int | None) -> FloorSettings | None:
    """The profile's floor from the CLI's flags, None when none is given."""
    if servers_per_rack is None and rack_kw is None and racks_per_row is None:
        return None
    return FloorSettings(servers_per_rack=servers_per_rack, rack_kw=rack_kw, racks_per_row=racks_per_row)


def _write_cabling(rec: Recommendation, path: Path) -> None:
    """--cabling-csv: the cabling plan (compute, storage, in-band and out-of-band networks), streamed to the file."""
    from advisor.render.cabling import NO_FABRIC, cabling_build, cabling_csv  # with the rules engine

    build = cabling_build(rec)
    if build is None:
        raise UserError(f"--cabling-csv: this design {NO_FABRIC}.")
    try:
        with path.open("w", encoding="utf-8", newline="") as f:
            for chunk in cabling_csv(build):
                f.write(chunk)
    except OSError as exc:
        raise UserError(f"--cabling-csv: cannot write {path}: {exc.strerror or exc}") from None


@app.command()
def expand(
    rec_id: Annotated[str, typer.Argument(metavar="ID", help="The stored design's id, e.g. r_3f9a0c12.")],
    gpus: Annotated[int, typer.Option("--gpus", help="GPUs in the expanded cluster, in all.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the expansion as JSON.")] = False,
) -> None:
    """Grow a stored design to more GPUs: only what is added, and what must be re-cabled."""
    from advisor.designs import recommendations

    try:
        expanded = recommendations.expand(rec_id, gpus)
    except ValidationError as exc:
        raise UserError(_validation_line(exc)) from None
    except ValueError as exc:
        raise UserError(_validation_line_from_text(str(exc))) from None
    if expanded is None:
        raise UserError(f"ID: no stored design has the id {rec_id!r}; check the id you were given.")
    if as_json:
        _json(expanded)
        return
    out = _console()
    step = expanded.step
    lines = [
        f"Expansion of {expanded.from_id}: {expanded.gpus_before:,} -> {step.gpus:,} GPUs "
        f"(+{step.gpus_added:,}, {step.servers_added:,} server(s)); stored as {expanded.id}.",
        f"Adds {step.switches_added:,} switch(es) ({step.leaf_switches_added:,} leaf, {step.spine_switches_added:,} "
        f"spine, {step.core_switches_added:,} core) and {step.cables_added:,} compute cable(s); "
        f"${step.cost_added_usd_low:,} - ${step.cost_added_usd_high:,}.",
        *(f"  + {line.quantity:,} x {line.part_number} ({line.fabric} {line.category})" for line in step.added),
        "Keeps every switch and cable where it is."
        if expanded.keeps_cabling
        else "Re-cabling needed:\n" + "\n".join(f"  - {why}" for why in step.recabling),
        *(
            ["Sized afresh, the larger design uses fewer of: " + ", ".join(step.fewer) + " (they stay or are spares)."]
            if step.fewer
            else []
        ),
    ]
    for line in lines:
        out.print(line, markup=False, highlight=False)


def _validation_line_from_text(message: str) -> str:
    """A rules message that names its field first ("gpus: ...") with the flag instead."""
    head, colon, rest = message.partition(": ")
    return f"--{head}: {rest}" if colon and head == "gpus" else message


@app.command()
def size(
    nodes: Annotated[int, typer.Option(min=1, help="GPU servers.")],
    gpus_per_node: Annotated[int, typer.Option(min=1, max=72, help="Compute ports (GPUs) per server.")] = 8,
    radix: Annotated[int, typer.Option(min=4, help="Switch ports at the link speed.")] = 64,
    link_gbps: Annotated[int, typer.Option(min=1, help="Link speed, Gb/s.")] = 400,
    rail_optimized: Annotated[
        bool, typer.Option("--rail-optimized", help="One leaf per rail per scalable unit.")
    ] = False,
    oversubscription: Annotated[float, typer.Option(min=1.0, help="Leaf down:up ratio (fat-tree only).")] = 1.0,
    as_json: Annotated[bool, typer.Option("--json", help="Print the topology as JSON.")] = False,
) -> None:
    """Size a fabric: tiers, leaf/spine/core switches and cables."""
    from advisor.render import terminal
    from rules import sizing  # only the sizing models: `size` starts without the rules engine

    try:
        if rail_optimized:
            topology = sizing.size_rail_optimized(
                nodes=nodes, rails=gpus_per_node, radix=radix, link_gbps=link_gbps, nodes_per_su=radix // 2
            )
        else:
            topology = sizing.size_fat_tree(nodes * gpus_per_node, radix, link_gbps, oversubscription)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    if as_json:
        _json(topology)
    else:
        terminal.print_view(terminal.topology_view(topology), _console())


@app.command()
def ask(
    question: Annotated[str, typer.Argument(help="A question, in your words.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the full answer as JSON.")] = False,
    design: Annotated[
        str | None,
        typer.Option(
            "--design",
            metavar="ID",
            help='A stored design to ask about: "how many racks?", "export the BOM", "what if we use 200G?".',
        ),
    ] = None,
) -> None:
    """Ask anything: a sizing request, a knowledge question, or about a stored design."""
    from advisor.designs import recommendations
    from advisor.models import AskRequest

    try:
        request = AskRequest(question=question, recommendation_id=design)
    except ValidationError as exc:
        raise UserError(_validation_line(exc)) from None
    shown = recommendations.get_recommendation(design) if design else None
    if design and shown is None:
        raise UserError(f"--design: no stored design {design!r}")
    # the design's own profile is what earlier turns established
    profile = (
        ProfileDraft.model_validate(shown.profile.model_dump(include=set(ProfileDraft.model_fields), exclude_none=True))
        if shown
        else None
    )
    with _spinner("Thinking (loading the language model the first time)..."):
        from advisor import service  # here, not at the top: it loads spaCy (~2 s), which only `ask` needs
        from advisor.render.wording import customer_text

        result = service.ask(request.question, profile, design)
    if as_json:
        _json(result)
        return
    reply = customer_text(result.reply)
    if not sys.stdout.isatty():  # a pipe or a file: the words without markdown's marks
        from advisor.render.terminal import plain_text

        print(plain_text(reply))
        return
    from rich.markdown import Markdown

    _console().print(Markdown(reply))


@app.command()
def handoff(
    name: Annotated[str, typer.Option(help="Your name.")],
    email: Annotated[str, typer.Option(help="Where the engineer can write to you.")],
    company: Annotated[str, typer.Option(help="Your company.")],
    message: Annotated[str, typer.Option(help="What you want to discuss.")] = "",
    design: Annotated[str | None, typer.Option(help="A stored design's id to discuss, e.g. r_3f9a0c12ab34.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the handoff and each destination's outcome.")] = False,
) -> None:
    """Ask for a person: recorded and sent to the sales engineering team (Slack, email,
    webhook, as configured). Exit code 1 when it was recorded but no destination got it."""
    from advisor.handoffs import handoff as handoffs

    try:
        request = handoffs.HandoffRequest(
            name=name, email=email, company=company, message=message, recommendation_id=design
        )
        done = handoffs.submit(request)
    except ValidationError as exc:
        raise UserError(_validation_line(exc)) from None
    except handoffs.UnknownRecommendation as exc:
        raise UserError(f"--design: {exc}") from None
    if as_json:
        _json(done)
    else:
        out = _console()
        out.print(done.reply, markup=False, highlight=False)
        for delivery in done.deliveries:
            status = "reached" if delivery.reached else "NOT reached"
            out.print(f"  {delivery.destination.value}: {status} ({delivery.detail})", markup=False, highlight=False)
    if not done.notified:
        raise typer.Exit(1)


@kb_app.command("search")
def kb_search(
    text: Annotated[str, typer.Argument(help="What to look for.")],
    limit: Annotated[int, typer.Option(min=1, max=20)] = 3,
) -> None:
    """Search the knowledge base; prints the best entries with their sources."""
    import knowledge
    from advisor.render.wording import customer_text

    out = _console()
    hits = knowledge.search(text, limit=limit)
    if not hits:
        out.print("No entry matches; try other words.")
    for hit in hits:
        out.print(f"[bold]{hit.title}[/bold] [dim]({hit.subject})[/dim]")
        out.print(customer_text(hit.text), markup=False)
        out.print(f"Source: {customer_text(hit.source)}\n", style="dim", markup=False)


@kb_app.command("build")
def kb_build(force: Annotated[bool, typer.Option("--force")] = False) -> None:
    """Build the knowledge database (skipped when no source changed)."""
    import knowledge

    result = knowledge.build(force=force)
    _console().print(f"{result.path}: {'rebuilt' if result.rebuilt else 'up to date'}")


@app.command()
def serve(
    host: Annotated[str | None, typer.Option(help="Interface to listen on (default: FABRIC_ADVISOR_HOST).")] = None,
    port: Annotated[int | None, typer.Option(min=1, max=65535, help="Port (default: FABRIC_ADVISOR_API_PORT).")] = None,
) -> None:
    """Run the REST API and web widget page (uvicorn)."""
    from api.server import serve as run_server
    from core.settings import settings

    run_server(host=host or settings.host, port=port or settings.api_port)


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; usage errors and bad values are one line on stderr, exit code 2."""
    try:
        # (without standalone mode click returns a command's typer.Exit code instead of raising it)
        code = app(args=argv, standalone_mode=False, prog_name="fabric-advisor")
    except typer.Exit as exc:
        return exc.exit_code
    except typer.Abort:
        print("fabric-advisor: aborted", file=sys.stderr)
        return 130
    except typer.TyperException as exc:
        if type(exc).__name__ == "NoArgsIsHelpError":
            print(exc.format_message())  # its message is the command's help
            return 2
        message = " ".join(exc.format_message().replace("Value error, ", "").split())
        print(f"fabric-advisor: {message}", file=sys.stderr)
        return 2
    except UserError as exc:
        print(f"fabric-advisor: {exc}", file=sys.stderr)
        return 2
    return code if isinstance(code, int) else 0


if __name__ == "__main__":
    sys.exit(main())
