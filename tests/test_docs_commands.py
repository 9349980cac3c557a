"""The commands the docs show work as shown: every `make` target they name exists, every
`fabric-advisor` command line in the README parses (its subcommand and every flag), the
flags the README lists for the profile exist, and `--set` names the evaluation's sets."""

from __future__ import annotations

import re
import shlex

import pytest
import typer
from typer.testing import CliRunner, Result

from cli.main import app
from evaluation.scoring import COLLECTIONS
from tests.docs import ROOT, code_blocks, doc_files, doc_id, make_commands, make_targets

README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_makefile_targets_are_read() -> None:
    assert {"run", "test", "check", "lint", "setup", "nlu-report"} <= make_targets()
    assert "VENV" not in make_targets() and "MODEL" not in make_targets()  # variables, not targets


@pytest.mark.parametrize("doc", doc_files(), ids=doc_id)
def test_every_make_target_a_doc_names_exists(doc) -> None:
    named = make_commands(doc.read_text(encoding="utf-8"))
    assert set(named) - make_targets() == set()


def test_the_readme_names_the_everyday_commands() -> None:
    assert {"run", "test", "check", "lint"} <= set(make_commands(README))


def cli_lines() -> list[list[str]]:
    """The arguments of each `.venv/bin/fabric-advisor ...` line of the README's code."""
    lines = []
    for block in code_blocks(README):
        for line in block.replace("\\\n", " ").splitlines():  # a command continued over lines is one
            if line.startswith(".venv/bin/fabric-advisor "):
                lines.append(shlex.split(line, comments=True)[1:])
    return lines


def parses(args: list[str]) -> Result:
    """Click reads every flag before it answers --help, so an unknown subcommand or flag
    fails (exit 2) without the command running."""
    return CliRunner().invoke(app, [*args, "--help"])


def test_the_readme_shows_each_cli_command() -> None:
    shown = {args[0] for args in cli_lines()}
    assert {"recommend", "size", "ask", "kb", "serve"} <= shown


@pytest.mark.parametrize("args", cli_lines(), ids=" ".join)
def test_every_cli_line_of_the_readme_parses(args: list[str]) -> None:
    result = parses(args)
    assert result.exit_code == 0, result.output


def test_a_flag_the_cli_lacks_fails_the_parse() -> None:
    assert parses(["recommend", "--workload", "training", "--no-such-flag", "1"]).exit_code == 2
    assert parses(["no-such-command"]).exit_code == 2


def test_every_profile_flag_the_readme_lists_is_a_flag_of_recommend() -> None:
    paragraph = README[README.index("Every profile field has a flag") :]
    paragraph = paragraph[: paragraph.index("\n\n")]
    listed = set(re.findall(r"`(--[a-z][\w-]*)`", paragraph))
    command = typer.main.get_command(app).commands["recommend"]
    flags = {flag for param in command.params for flag in param.opts}
    assert len(listed) >= 10
    assert listed - flags == set()


def test_the_evaluation_sets_the_readme_offers_are_the_sets() -> None:
    offered = re.search(r"--set ([a-z0-9|]+)\]", README)
    assert offered is not None
    assert set(offered.group(1).split("|")) == set(COLLECTIONS)
