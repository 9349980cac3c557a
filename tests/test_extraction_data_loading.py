"""entities.yaml and numbers.yaml are checked against their schema when they load: a
broken file stops the start with the file, the entry and what is wrong, not a KeyError
deep in the pipeline."""

from __future__ import annotations

import copy
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from understanding.extraction import resources
from understanding.extraction.resources import load
from understanding.extraction.schemas import DataFileError, check_entities, check_numbers


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A copy of understanding/extraction/data that `load` reads instead, its cache emptied before and after."""
    for source in resources.DATA_DIR.glob("*.yaml"):
        shutil.copy(source, tmp_path / source.name)
    monkeypatch.setattr(resources, "DATA_DIR", tmp_path)
    load.cache_clear()
    yield tmp_path
    load.cache_clear()


def write_broken(data_dir: Path, name: str, change: Callable[[dict[str, Any]], None]) -> None:
    path = data_dir / f"{name}.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")


def entities_error(change: Callable[[dict[str, Any]], None]) -> str:
    data = copy.deepcopy(load("entities"))
    change(data)
    with pytest.raises(DataFileError) as caught:
        check_entities(data, "entities.yaml")
    return str(caught.value)


def numbers_error(change: Callable[[dict[str, Any]], None]) -> str:
    data = copy.deepcopy(load("numbers"))
    change(data)
    with pytest.raises(DataFileError) as caught:
        check_numbers(data, "numbers.yaml")
    return str(caught.value)


def test_the_shipped_files_pass() -> None:
    assert check_entities(load("entities")).system.systems
    assert check_numbers(load("numbers")).max_word_tokens >= 1


def test_a_broken_entities_file_stops_the_load_naming_the_entry(data_dir: Path) -> None:
    write_broken(data_dir, "entities", lambda data: data["system"]["systems"][0].update(gpus=8))
    with pytest.raises(DataFileError) as caught:
        load("entities")
    assert str(caught.value) == "entities.yaml: system.systems.0 (DGX H100).gpus: Extra inputs are not permitted"


def test_a_broken_numbers_file_stops_the_load_naming_the_key(data_dir: Path) -> None:
    write_broken(data_dir, "numbers", lambda data: data["tens"].update(forty="40ish"))
    with pytest.raises(DataFileError) as caught:
        load("numbers")
    message = str(caught.value)
    assert message.startswith("numbers.yaml: tens.forty: ") and "integer" in message


def test_a_gpu_model_without_aliases_is_refused() -> None:
    message = entities_error(lambda data: data["gpu"]["models"][0].update(aliases=[]))
    assert message.startswith("entities.yaml: gpu.models.0 (H100).aliases: ")
    assert "at least 1 item" in message


def test_a_missing_section_is_named() -> None:
    assert entities_error(lambda data: data.pop("fabric")) == "entities.yaml: fabric: Field required"


def test_an_entity_label_no_handler_reads_is_refused() -> None:
    message = entities_error(lambda data: data["patterns"][0].update(label="FABRIC_ETHERNET"))
    assert message.startswith("entities.yaml: patterns.0 (ethernet).label: Input should be 'GPU', 'SYSTEM'")


def test_an_alias_of_two_gpus_is_refused() -> None:
    message = entities_error(lambda data: data["gpu"]["models"][1]["aliases"].append("h100"))
    assert message == "entities.yaml: alias 'h100' of gpu model H200 is also an alias of gpu model H100"


def test_a_system_listed_twice_is_refused() -> None:
    message = entities_error(lambda data: data["system"]["systems"].append({"id": "DGX H100", "aliases": ["x"]}))
    assert message == "entities.yaml: system 'DGX H100' is listed twice"


def test_an_unknown_macro_in_a_pattern_is_refused() -> None:
    message = entities_error(lambda data: data["patterns"][0]["pattern"].append("ETH_UNITS"))
    assert message.startswith("entities.yaml: patterns.0: unknown macro 'ETH_UNITS'")


def test_a_lower_case_macro_is_refused() -> None:
    message = entities_error(lambda data: data["macros"].update(speed={"LIKE_NUM": True}))
    assert message == "entities.yaml: macros: macro 'speed' must be UPPER_CASE"


def test_a_regex_that_does_not_compile_is_refused() -> None:
    message = numbers_error(lambda data: data.update(digits_regex="^(\\d+$"))
    assert message.startswith("numbers.yaml: digits_regex: not a regular expression")


def test_a_zero_multiplier_is_refused() -> None:
    assert numbers_error(lambda data: data["suffixes"].update(k=0)) == (
        "numbers.yaml: suffixes: 'k' must be a positive number, not 0.0"
    )


def test_an_unknown_digit_class_in_a_shape_is_refused() -> None:
    message = numbers_error(lambda data: data["shapes"].append("DIGITS SCALE"))
    assert message == "numbers.yaml: shapes: shape 'DIGITS SCALE': 'SCALE' is neither DIGITS nor MULTIPLIER"


def test_a_word_after_an_article_must_be_a_number_word() -> None:
    message = numbers_error(lambda data: data["article_takes"].append("bunch"))
    assert message == "numbers.yaml: article_takes: bunch is not a number word of the tables"
