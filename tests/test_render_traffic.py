"""The renderers show the parallelism plan, the training step on each fabric and the fabric's
settings with their validation targets."""

from __future__ import annotations

from rich.console import Console

from advisor.render import markdown, slack, terminal
from rules.engine import recommend
from rules.models import WorkloadProfile

REC = recommend(WorkloadProfile(workload="training", gpu_count=16_384, gpu_model="H100", model_params_b=405))
ROCE = recommend(WorkloadProfile(workload="training", gpu_count=256, gpu_model="H100", prefer="rocev2"))


def test_markdown_shows_the_plan_the_step_and_the_settings():
    text = markdown.recommendation_markdown(REC)
    assert "**Parallelism plan:** TP 8 x PP 16 x DP 128" in text
    assert "**Training step:**" in text and "exposed" in text
    assert "**With SHARP (option):**" in text
    assert "**Fabric configuration**" in text and "Subnet manager routing engine" in text
    assert "**After cabling, expect**" in text and "all_reduce_perf" in text


def test_markdown_compare_gives_each_fabric_its_exposed_communication():
    text = markdown.compare_markdown(ROCE)
    assert text.count("exposed per") == 1 + len(ROCE.alternatives)


def test_slack_blocks_carry_the_plan_and_the_settings_within_limits():
    blocks = slack.recommendation_blocks(ROCE)
    fields = next(b for b in blocks if "fields" in b)["fields"]
    assert any(f["text"].startswith("*Parallelism plan*") for f in fields)
    sections = [b["text"]["text"] for b in blocks if b["type"] == "section" and "text" in b]
    assert any(s.startswith("*Fabric configuration*") and "ECN" in s for s in sections)
    assert any(s.startswith("*After cabling, expect*") for s in sections)
    assert all(len(s) <= 3000 for s in sections) and len(blocks) <= 50


def test_terminal_view_lists_the_plan_and_the_configuration():
    console = Console(record=True, width=200)
    terminal.print_view(terminal.recommendation_view(ROCE), console)
    text = console.export_text()
    assert "Parallelism plan" in text and "Training step" in text
    assert "Fabric configuration" in text and "PFC headroom" in text
