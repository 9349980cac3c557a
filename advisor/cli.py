"""`fabric-advisor`: the command line for sales engineers.

Same functions as the API and the chat (advisor.recommendations, advisor.service,
knowledge); this module only parses flags and prints. Each command imports what it
needs when it runs, so `size` starts without the rules engine and only `ask` loads spaCy
(tests/test_cli.py checks; `make bench` prints the start-up times). Bad input is one line on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from pydantic import BaseModel, ValidationError
from rich.console import Console

from advisor.models import AskRequest
from advisor.render import bom as bom_render
from advisor.render import terminal
from core.settings import settings
from rules.models import FloorSettings, Preference, Recommendation, Workload, WorkloadProfile

app = typer.Typer(
    help="Fabric Advisor: how to network a GPU cluster, explained.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
kb_app = typer.Typer(help="The knowledge base.", no_args_is_help=True)
app.add_typer(kb_app, name="kb")
out = Console()


class UserError(Exception):
    """Input the user can fix; printed as one line with exit code 2."""


def _validation_line(exc: ValidationError) -> str:
    first = exc.errors()[0]
    field = ".".join(str(p) for p in first["loc"]) or "profile"
    message = first["msg"].removeprefix("Value error, ")
    return message if message.startswith(field) else f"{field}: {message}"


def _json(model: BaseModel) -> None:
    print(model.model_dump_json(indent=2))


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
    prefer: Annotated[Preference | None, typer.Option(help="A preferred fabric.")] = None,
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
    as_json: Annotated[bool, typer.Option("--json", help="Print the Recommendation as JSON.")] = False,
    bom: Annotated[bool, typer.Option("--bom", help="Also print the bill of materials.")] = False,
    bom_csv: Annotated[
        Path | None, typer.Option("--bom-csv", help="Write the bill of materials to this CSV file.", metavar="FILE")
    ] = None,
    cabling_csv: Annotated[
        Path | None,
        typer.Option("--cabling-csv", help="Write the compute fabric's cabling plan to this CSV file.", metavar="FILE"),
    ] = None,
    servers_per_rack: Annotated[
        int | None, typer.Option("--servers-per-rack", help="Servers per compute rack (default: the RA's).")
    ] = None,
    rack_kw: Annotated[float | None, typer.Option("--rack-kw", help="Power a compute rack takes, kW.")] = None,
    racks_per_row: Annotated[
        int | None, typer.Option("--racks-per-row", help="Racks per row, its leaf network rack included.")
    ] = None,
) -> None:
    """Recommend a fabric, topology, ports, switches and cost for a workload."""
    from advisor import recommendations  # the rules engine: rule-engine's parser takes ~1 s to import

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
                active_params_b=active_params_b,
                tokens_per_step=tokens_per_step,
                floor=_floor(servers_per_rack, rack_kw, racks_per_row),
            )
        )
    except ValidationError as exc:
        raise UserError(_validation_line(exc)) from None
    rec = recommendations.recommend(profile)
    if cabling_csv is not None:
        _write_cabling(rec, cabling_csv)
    if bom_csv is not None:
        try:
            bom_csv.write_text(bom_render.bom_csv(rec), encoding="utf-8", newline="")
        except OSError as exc:
            raise UserError(f"--bom-csv: cannot write {bom_csv}: {exc.strerror or exc}") from None
    if as_json:
        _json(rec)
        return
    terminal.print_view(terminal.recommendation_view(rec, settings.diagram_url(rec.id)), out)
    if bom:
        terminal.print_view(terminal.bom_view(rec), out)
    if bom_csv is not None:
        out.print(f"Bill of materials written to {bom_csv} ({len(rec.bill_of_materials)} lines).", markup=False)
    if cabling_csv is not None:
        out.print(f"Cabling plan written to {cabling_csv}.", markup=False)


def _floor(servers_per_rack: int | None, rack_kw: float | None, racks_per_row: int | None) -> FloorSettings | None:
    """The profile's floor from the CLI's flags, None when none is given."""
    if servers_per_rack is None and rack_kw is None and racks_per_row is None:
        return None
    return FloorSettings(servers_per_rack=servers_per_rack, rack_kw=rack_kw, racks_per_row=racks_per_row)


def _write_cabling(rec: Recommendation, path: Path) -> None:
    """--cabling-csv: the compute fabric's cabling plan, streamed to the file."""
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
        terminal.print_view(terminal.topology_view(topology), out)


@app.command()
def ask(
    question: Annotated[str, typer.Argument(help="A question, in your words.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the full answer as JSON.")] = False,
) -> None:
    """Ask anything: a sizing request or a knowledge question."""
    from advisor import service  # here, not at the top: it loads spaCy (~2 s), which only `ask` needs

    try:
        request = AskRequest(question=question)
    except ValidationError as exc:
        raise UserError(_validation_line(exc)) from None
    result = service.ask(request.question)
    if as_json:
        _json(result)
    else:
        out.print(result.reply, markup=False, highlight=False)


@kb_app.command("search")
def kb_search(
    text: Annotated[str, typer.Argument(help="What to look for.")],
    limit: Annotated[int, typer.Option(min=1, max=20)] = 3,
) -> None:
    """Search the knowledge base; prints the best entries with their sources."""
    import knowledge

    hits = knowledge.search(text, limit=limit)
    if not hits:
        out.print("No entry matches; try other words.")
    for hit in hits:
        out.print(f"[bold]{hit.title}[/bold] [dim]({hit.subject})[/dim]")
        out.print(hit.text, markup=False)
        out.print(f"[dim]Source: {hit.source}[/dim]\n")


@kb_app.command("build")
def kb_build(force: Annotated[bool, typer.Option("--force")] = False) -> None:
    """Build the knowledge database (skipped when no source changed)."""
    import knowledge

    result = knowledge.build(force=force)
    out.print(f"{result.path}: {'rebuilt' if result.rebuilt else 'up to date'}")


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = settings.host,
    port: Annotated[int, typer.Option(min=1, max=65535)] = settings.api_port,
) -> None:
    """Run the REST API and web widget page (uvicorn)."""
    from api.server import serve as run_server

    run_server(host=host, port=port)


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; usage errors and bad values are one line on stderr, exit code 2."""
    try:
        app(args=argv, standalone_mode=False, prog_name="fabric-advisor")
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
