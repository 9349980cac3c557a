"""The `fabric-advisor` command, run as a person runs it: the installed script."""

from __future__ import annotations

import json
import re
import subprocess
from typing import Any

import pytest

from tests.servers import VENV_BIN

#: our code in another process (make test runs these; make check leaves them out)
pytestmark = pytest.mark.e2e


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(VENV_BIN / "fabric-advisor"), *args], capture_output=True, text=True, timeout=120, env=env
    )


@pytest.fixture(autouse=True)
def _private_store(tmp_path, monkeypatch):
    monkeypatch.setenv("FABRIC_ADVISOR_DB", str(tmp_path / "advisor.db"))


def test_recommend_prints_a_readable_summary_with_reasons_and_sources():
    result = cli(
        "recommend",
        "--workload",
        "training",
        "--gpus",
        "128",
        "--gpu-model",
        "H100",
        "--params-b",
        "70",
        env=_wide_env(),
    )
    assert result.returncode == 0, result.stderr
    assert "InfiniBand NDR" in result.stdout
    assert "rail-optimized" in result.stdout
    assert "training-16plus-infiniband" in result.stdout
    assert "GPU Server Networking" in result.stdout  # the guide by its title, never "Seed guide"
    assert "seed" not in result.stdout.lower()


def test_recommend_json_is_the_recommendation_contract():
    result = cli(
        "recommend", "--workload", "training", "--gpus", "128", "--gpu-model", "H100", "--params-b", "70", "--json"
    )
    assert result.returncode == 0, result.stderr
    body = json.loads(result.stdout)
    assert body["fabric"]["technology"] == "infiniband_ndr"
    assert body["topology"]["kind"] == "rail_optimized"
    assert body["id"].startswith("r_")
    for key in ("ports_per_server", "cost", "performance", "roce_configuration", "alternatives", "explanation"):
        assert key in body


def test_every_profile_field_has_a_flag():
    result = cli(
        "recommend",
        "--workload",
        "training",
        "--nodes",
        "6",
        "--gpus-per-node",
        "8",
        "--gpu-model",
        "H100",
        "--params-b",
        "13",
        "--budget-usd",
        "3000000",
        "--network-budget-usd",
        "400000",
        "--cost-sensitive",
        "--existing-ethernet",
        "--prefer",
        "rocev2",
        "--tp",
        "2",
        "--pp",
        "2",
        "--message-gb",
        "8",
        "--moe",
        "--active-params-b",
        "4",
        "--tokens-per-step",
        "1048576",
        "--servers-per-rack",
        "2",
        "--rack-kw",
        "30",
        "--racks-per-row",
        "10",
        "--oversubscription",
        "3:1",
        "--zone-gpus",
        "16",
        "--link-speed",
        "200",
        "--json",
    )
    assert result.returncode == 0, result.stderr
    profile = json.loads(result.stdout)["profile"]
    assert profile == {
        "workload": "training",
        "gpu_count": 48,
        "gpus_per_node": 8,
        "node_count": 6,
        "gpu_model": "H100",
        "model_params_b": 13.0,
        "budget_usd": 3000000.0,
        "network_budget_usd": 400000.0,
        "cost_sensitive": True,
        "existing_ethernet": True,
        "prefer": "rocev2",
        "tp": 2,
        "pp": 2,
        "message_gb": 8.0,
        "moe": True,
        "link_gbps": 200,
        "active_params_b": 4.0,
        "tokens_per_step": 1048576,
        "oversubscription": 3.0,
        "zone_gpus": 16,
        "floor": {"servers_per_rack": 2, "rack_kw": 30.0, "racks_per_row": 10},
    }


def test_size_prints_the_superpod_topology():
    result = cli("size", "--nodes", "127", "--gpus-per-node", "8", "--radix", "64", "--rail-optimized", "--json")
    assert result.returncode == 0, result.stderr
    topology = json.loads(result.stdout)
    assert (topology["leaf_switches"], topology["spine_switches"]) == (32, 16)
    assert [c["count"] for c in topology["cables"]] == [1020, 1024]


def test_kb_search_prints_entries_with_sources():
    result = cli("kb", "search", "what is PFC")
    assert result.returncode == 0, result.stderr
    assert "PFC" in result.stdout.splitlines()[0]
    assert "Source:" in result.stdout


def test_ask_answers_a_knowledge_question():
    result = cli("ask", "what is PFC?")
    assert result.returncode == 0, result.stderr
    assert "Source" in result.stdout


@pytest.mark.parametrize(
    "args, says",
    [
        (("recommend", "--workload", "training", "--gpus", "0"), "--gpus"),
        (("recommend", "--workload", "training", "--gpus", "2000000"), "--gpus"),
        (("recommend", "--workload", "dancing", "--gpus", "8"), "--workload"),
        (("recommend", "--gpus", "8"), "--workload"),
        (
            ("recommend", "--workload", "training", "--gpus", "100", "--nodes", "10", "--gpus-per-node", "8"),
            "--gpus",
        ),
        (("recommend", "--workload", "training", "--gpus", "8", "--bogus"), "--bogus"),
        (("size", "--nodes", "100000", "--radix", "16"), "fat-tree"),
        (("ask", "x" * 2001), "2000"),
        (("recommend", "--workload", "training", "--gpus", "16", "--tp", "8", "--pp", "4"), "tp x pp"),
        (("recommend", "--workload", "training", "--gpus", "16", "--message-gb", "0"), "--message-gb"),
        (("recommend", "--workload", "training", "--gpus", "16", "--discount-pct", "100"), "--discount-pct"),
        (("recommend", "--workload", "training", "--gpus", "16", "--prices", "/nonexistent.csv"), "--prices"),
        (("recommend", "--workload", "training", "--gpus", "16", "--servers-per-rack", "0"), "--servers-per-rack"),
        (("recommend", "--workload", "training", "--gpus", "16", "--rack-kw", "-1"), "--rack-kw:"),
        (("recommend", "--workload", "training", "--gpus", "16", "--racks-per-row", "1"), "--racks-per-row"),
    ],
)
def test_bad_input_is_one_clear_line_and_exit_code_2(args, says):
    result = cli(*args)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert says in lines[0]
    assert not re.search(r"\b[a-z]+_[a-z_]+\b", lines[0]), lines[0]  # a flag, never a field name


def test_recommend_bom_prints_the_bill_of_materials_table():
    result = cli(
        "recommend", "--workload", "training", "--nodes", "16", "--gpu-model", "H100", "--bom", env=_wide_env()
    )
    assert result.returncode == 0, result.stderr
    assert "Bill of materials" in result.stdout
    for part in ("MQM9700-NS2F", "MMA4Z00-NS", "MFP7E10-N015", "MSN2201-CB2FC", "included"):
        assert part in result.stdout, part


def test_recommend_bom_csv_writes_every_line_and_a_total(tmp_path):
    import csv

    target = tmp_path / "bom.csv"
    result = cli(
        "recommend", "--workload", "training", "--nodes", "16", "--gpu-model", "H100", "--bom-csv", str(target)
    )
    assert result.returncode == 0, result.stderr
    rows = list(csv.DictReader(target.open(encoding="utf-8", newline="")))
    body = json.loads(
        cli("recommend", "--workload", "training", "--nodes", "16", "--gpu-model", "H100", "--json").stdout
    )
    assert len(rows) == len(body["bill_of_materials"]) + 1
    assert rows[-1]["fabric"] == "total"
    assert int(rows[-1]["total_usd_low"]) == body["cost"]["network_usd_low"]
    assert all(row["part_number"] and row["source"] for row in rows[:-1])
    assert str(target) in result.stdout


def test_recommend_bom_csv_to_an_unwritable_place_is_exit_code_2(tmp_path):
    result = cli("recommend", "--workload", "training", "--nodes", "16", "--bom-csv", str(tmp_path / "no" / "x.csv"))
    assert result.returncode == 2
    assert "--bom-csv" in result.stderr and "Traceback" not in result.stderr


def _wide_env() -> dict[str, str]:
    import os

    return {**os.environ, "COLUMNS": "220"}


def test_errors_name_the_flag_not_the_field():
    result = cli("recommend", "--workload", "training", "--gpus", "100", "--nodes", "10", "--gpus-per-node", "8")
    assert result.returncode == 2
    assert "--gpus" in result.stderr and "--nodes" in result.stderr
    assert "gpu_count" not in result.stderr and "node_count" not in result.stderr


def test_help_at_80_columns_shows_every_flag_whole():
    import os

    result = cli("recommend", "--help", env={**os.environ, "COLUMNS": "80"})
    assert result.returncode == 0
    assert all(len(line) <= 80 for line in result.stdout.splitlines()), result.stdout
    for flag in ("--network-budget-usd", "--existing-ethernet", "--no-existing-ethernet", "--bom-xlsx", "--prices"):
        assert flag in result.stdout, flag
    assert "…" not in result.stdout


def _commands() -> list[tuple[list[str], list[str]]]:
    """Every command's words (e.g. ["kb", "search"]) and every flag it takes."""
    import typer.main

    from cli.main import app

    found = []

    def walk(command: Any, path: list[str]) -> None:
        if hasattr(command, "commands"):  # a group (typer's own click)
            for name, sub in command.commands.items():
                walk(sub, [*path, name])
            return
        flags = [opt for p in command.params for opt in (*p.opts, *p.secondary_opts) if opt.startswith("-")]
        found.append((path, flags))

    walk(typer.main.get_command(app), [])
    return found


@pytest.mark.parametrize(
    ("words", "flags"), _commands(), ids=lambda v: " ".join(v) if v and v[0][0] != "-" else "flags"
)
def test_every_commands_help_at_80_columns_shows_each_flag_whole(words, flags):
    import os

    result = cli(*words, "--help", env={**os.environ, "COLUMNS": "80"})
    assert result.returncode == 0, result.stderr
    assert all(len(line) <= 80 for line in result.stdout.splitlines()), result.stdout
    assert "…" not in result.stdout
    shown = set(re.findall(r"--?[a-z][a-z0-9-]*", result.stdout))
    assert set(flags) <= shown, set(flags) - shown


def test_the_bom_table_at_80_columns_keeps_every_part_number_whole():
    import os

    args = ("recommend", "--workload", "training", "--nodes", "16", "--gpu-model", "H100")
    body = json.loads(cli(*args, "--json").stdout)
    result = cli(*args, "--bom", env={**os.environ, "COLUMNS": "80"})
    assert result.returncode == 0, result.stderr
    assert all(len(line) <= 80 for line in result.stdout.splitlines())
    rows = [line for line in result.stdout.splitlines() if line.startswith("│ ")]
    first_cells = {row.split("│")[1].strip() for row in rows}
    for line in body["bill_of_materials"]:
        assert line["part_number"] in first_cells, line["part_number"]


def test_prices_and_discount_from_the_command_line_show_as_such(tmp_path):
    prices = tmp_path / "prices.csv"
    prices.write_text('part number,unit price\nMQM9700-NS2F,"$40,000"\n', encoding="utf-8")
    args = ("recommend", "--workload", "training", "--nodes", "16", "--gpu-model", "H100", "--prepared-for", "Acme AI")
    result = cli(*args, "--prices", str(prices), "--discount-pct", "10", "--json")
    assert result.returncode == 0, result.stderr
    body = json.loads(result.stdout)
    switch = next(line for line in body["bill_of_materials"] if line["part_number"] == "MQM9700-NS2F")
    assert switch["unit_usd_low"] == switch["unit_usd_high"] == 40000
    assert switch["source"] == "As quoted by the customer's price list"
    quote = body["quote"]
    assert quote["prepared_for"] == "Acme AI" and quote["customer_priced"] == ["MQM9700-NS2F"]
    assert quote["discount_pct"] == 10
    assert quote["net_usd_low"] == body["cost"]["network_usd_low"] - round(body["cost"]["network_usd_low"] * 0.1)
    text = cli(*args, "--prices", str(prices), "--discount-pct", "10", "--bom", env=_wide_env()).stdout
    assert "Discount (10 %)" in text and "Net after discount" in text and "for Acme AI" in text


def test_prices_naming_an_unknown_part_is_exit_code_2_naming_it(tmp_path):
    prices = tmp_path / "prices.csv"
    prices.write_text("MQM9700-NS2F,40000\nNOT-A-PART,12\n", encoding="utf-8")
    result = cli("recommend", "--workload", "training", "--gpus", "16", "--prices", str(prices))
    assert result.returncode == 2
    assert "--prices" in result.stderr and "NOT-A-PART" in result.stderr and "MQM9700" not in result.stderr


def test_bom_xlsx_writes_a_summary_and_a_sheet_per_network(tmp_path):
    import openpyxl

    target = tmp_path / "bom.xlsx"
    args = ("recommend", "--workload", "training", "--nodes", "16", "--gpu-model", "H100")
    result = cli(*args, "--bom-xlsx", str(target))
    assert result.returncode == 0, result.stderr
    assert str(target) in result.stdout
    body = json.loads(cli(*args, "--json").stdout)
    book = openpyxl.load_workbook(target)
    assert book.sheetnames == ["summary", "compute", "storage", "in_band", "out_of_band"]
    for network in ("compute", "storage", "in_band", "out_of_band"):
        rows = list(book[network].iter_rows(min_row=2, values_only=True))
        lines = [line for line in body["bill_of_materials"] if line["fabric"] == network]
        assert [(r[1], r[3]) for r in rows[:-1]] == [(line["part_number"], line["quantity"]) for line in lines]


def test_ask_into_a_pipe_prints_plain_text_and_no_spinner():
    result = cli("ask", "what is PFC?")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("PFC (Priority Flow Control): Priority Flow Control"), result.stdout
    assert "**" not in result.stdout and "_Source:" not in result.stdout
    lines = result.stdout.splitlines()
    assert any("802.1Qbb: per-priority pause frames that stop a sender before a switch buffer" in x for x in lines)
    assert any(x.startswith('Source: "GPU Server Networking: InfiniBand, RoCE, and Ethernet') for x in lines)
    assert "Thinking" not in result.stderr and "\x1b" not in result.stdout + result.stderr


def _run_on_terminals(*args: str) -> tuple[int, str, str]:
    """Run the CLI with stdout and stderr each on a terminal of its own (80 columns);
    what each terminal showed."""
    import os
    import pty
    import select

    masters, slaves = zip(*(pty.openpty() for _ in range(2)), strict=True)
    env = {**os.environ, "COLUMNS": "80", "TERM": "xterm-256color"}
    env.pop("NO_COLOR", None)
    process = subprocess.Popen(
        [str(VENV_BIN / "fabric-advisor"), *args], stdout=slaves[0], stderr=slaves[1], stdin=subprocess.DEVNULL, env=env
    )
    for fd in slaves:
        os.close(fd)
    shown = {fd: b"" for fd in masters}
    open_fds = set(masters)
    while open_fds:
        ready, _, _ = select.select(list(open_fds), [], [], 120)
        assert ready, "the CLI printed nothing for 120 s"
        for fd in ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # EIO: the process closed its side
                chunk = b""
            if chunk:
                shown[fd] += chunk
            else:
                open_fds.discard(fd)
                os.close(fd)
    code = process.wait(timeout=120)
    return code, shown[masters[0]].decode(), shown[masters[1]].decode()


def test_ask_on_a_terminal_spins_on_stderr_and_renders_the_markdown():
    code, out, err = _run_on_terminals("ask", "what is PFC?")
    assert code == 0, err
    assert "Thinking" in err  # the spinner, on stderr only
    assert "Thinking" not in out
    assert "\x1b[1m" in out  # the bold term, rendered as bold
    assert "**" not in out and "_Source:" not in out
    assert "Priority Flow Control" in out


def _stored_id(*profile: str) -> str:
    result = cli("recommend", "--workload", "training", *profile, "--json")
    assert result.returncode == 0, result.stderr
    return str(json.loads(result.stdout)["id"])


def test_expand_lists_what_the_next_su_adds_and_the_larger_design_id():
    rec_id = _stored_id("--gpus", "1024", "--gpu-model", "B200")
    result = cli("expand", rec_id, "--gpus", "1280", "--json")
    assert result.returncode == 0, result.stderr
    body = json.loads(result.stdout)
    assert body["from_id"] == rec_id and body["id"] != rec_id
    assert body["step"]["leaf_switches_added"] == 8
    printed = cli("expand", rec_id, "--gpus", "1280", env=_wide_env())
    assert printed.returncode == 0, printed.stderr
    assert "1,024 -> 1,280 GPUs" in printed.stdout and body["id"] in printed.stdout


@pytest.mark.parametrize(("gpus", "says"), [("1024", "more than 1,024"), ("0", "--gpus")])
def test_expand_to_no_more_gpus_is_exit_code_2_naming_the_flag(gpus, says):
    rec_id = _stored_id("--gpus", "1024", "--gpu-model", "B200")
    result = cli("expand", rec_id, "--gpus", gpus)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and says in lines[0], result.stderr


def test_expand_an_unknown_id_is_exit_code_2():
    result = cli("expand", "r_000000000000", "--gpus", "2048")
    assert result.returncode == 2
    assert "r_000000000000" in result.stderr


def test_ask_about_a_stored_design_answers_the_chat_verbs():
    made = cli("recommend", "--workload", "training", "--gpus", "128", "--gpu-model", "H100", "--json")
    assert made.returncode == 0, made.stderr
    rec_id = json.loads(made.stdout)["id"]
    racks = cli("ask", "how many racks?", "--design", rec_id, "--json")
    assert racks.returncode == 0, racks.stderr
    answer = json.loads(racks.stdout)
    assert answer["kind"] == "design_answer" and "**Racks:** 5 in all" in answer["reply"]
    assert [q["title"] for q in answer["quick_replies"]] == ["Download BOM", "Printable report", "Compare", "Why"]
    refused = json.loads(cli("ask", "what if we use 800G?", "--design", rec_id, "--json").stdout)
    assert refused["reply"].startswith("**Not applied:**") and "ConnectX-8" in refused["reply"]
    unknown = cli("ask", "how many racks?", "--design", "r_000000000000")
    assert unknown.returncode == 2 and "--design" in unknown.stderr


HEAVY = ("fastapi", "numpy", "networkx", "spacy", "rich.markdown", "weasyprint", "openpyxl", "sqlite_utils")


def _loaded_after(code: str, tmp_path) -> set[str]:
    import os
    import sys

    env = {**os.environ, "FABRIC_ADVISOR_DB": str(tmp_path / "advisor.db")}
    probe = f"import sys\n{code}\nprint(' '.join(sys.modules), file=sys.stderr)"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    return set(result.stderr.split())


def test_importing_the_cli_loads_no_heavy_module(tmp_path):
    loaded = _loaded_after("import cli.main", tmp_path)
    assert [name for name in HEAVY if name in loaded] == []
    assert "rule_engine" not in loaded and "rich" not in loaded  # not even the rules engine or rich


def test_recommend_designs_and_prints_without_any_heavy_module(tmp_path):
    code = (
        "import io, contextlib\nfrom cli import main as cli\nwith contextlib.redirect_stdout(io.StringIO()) as out:\n"
        "    assert cli.main(['recommend', '--workload', 'training', '--gpus', '128', '--gpu-model', 'H100']) == 0\n"
        "assert 'InfiniBand NDR' in out.getvalue()"
    )
    loaded = _loaded_after(code, tmp_path)
    assert [name for name in HEAVY if name in loaded] == []


def test_recommend_prints_the_designs_first_line_before_loading_rich_or_the_renderers(tmp_path):
    """The time to the first line (make bench) leaves out rich and the renderers (~0.1 s):
    the design's heading is written, and flushed, before they are imported."""
    code = (
        "import io, sys\nfrom cli import main as cli\n"
        "class Tap(io.StringIO):\n"
        "    def write(self, s):\n"
        "        if not self.getvalue().strip() and s.strip():\n"
        "            self.first, self.loaded = s, {'rich', 'advisor.render.terminal'} & set(sys.modules)\n"
        "        return super().write(s)\n"
        "tap = Tap(); sys.stdout = tap\n"
        "assert cli.main(['recommend', '--workload', 'training', '--gpus', '128', '--gpu-model', 'H100']) == 0\n"
        "sys.stdout = sys.__stdout__\n"
        "assert tap.first.startswith('Fabric Advisor: training on 128 H100 GPUs (16 servers x 8 GPUs)'), tap.first\n"
        "assert tap.loaded == set(), tap.loaded\n"
        "assert tap.getvalue().count('Fabric Advisor:') == 1 and 'InfiniBand NDR' in tap.getvalue()"
    )
    _loaded_after(code, tmp_path)


def test_the_settings_name_the_embedding_model_as_core_embedding_does():
    from core import settings
    from minilm import embedding

    assert settings.MODEL_DIR_VARIABLE == embedding.MODEL_DIR_VARIABLE
    assert settings.DEFAULT_MODEL_DIR == embedding.DEFAULT_MODEL_DIR
