"""One file for the customer-facing names and questions: the renderers and the bot read
the same words, and a broken labels file is refused with what is missing."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from advisor.render import labels as labels_module
from advisor.render import markdown, svg
from bot.actions import replies


def test_the_bot_and_the_renderers_ask_the_same_questions() -> None:
    for field, question in labels_module.labels().questions.items():
        assert replies.question(field)["text"] == question.text
        assert question.text in markdown.clarification_markdown([field])


def test_the_renderers_name_topologies_and_port_roles_from_the_labels_file() -> None:
    loaded = labels_module.labels()
    assert {k: v.name for k, v in loaded.topologies.items()} == markdown.TOPOLOGY_NAMES
    assert {k.value: v for k, v in svg.KIND_LABELS.items()} == {k: v.short for k, v in loaded.topologies.items()}
    assert {k.value: v for k, v in svg.ROLE_LABELS.items()} == {k: v.short for k, v in loaded.port_roles.items()}
    assert replies.field_name("gpus_per_node") == markdown.PLAIN_FIELDS["gpus_per_node"] == "GPUs per server"


def broken_copy(tmp_path: Path, change: object) -> Path:
    data = yaml.safe_load(labels_module.LABELS_FILE.read_text(encoding="utf-8"))
    change(data)  # type: ignore[operator]
    path = tmp_path / "labels.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda d: d["topologies"].pop("dragonfly_plus"), "topologies: no label for dragonfly_plus"),
        (lambda d: d["port_roles"].update(uplink={"name": "u", "short": "u"}), "uplink is not in the contract"),
        (lambda d: d["questions"].pop("gpu_count"), "questions: no question for gpu_count"),
        (lambda d: d["fields"].pop("prefer"), "fields: no label for prefer"),
        (lambda d: d["questions"]["workload"].update(txt="x"), "txt"),
    ],
)
def test_a_broken_labels_file_is_refused_with_what_is_wrong(tmp_path: Path, change: object, words: str) -> None:
    with pytest.raises(ValueError, match=r"labels\.yaml") as caught:
        labels_module.labels(broken_copy(tmp_path, change))
    assert words in str(caught.value)
