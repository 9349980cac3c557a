"""A question that mixes bits and bytes gets the conversion of its own numbers, with the
rule and its source; a question that names only one kind of unit is left to search."""

from __future__ import annotations

import pytest

from advisor import service
from knowledge.units import conversion, quantities


@pytest.mark.parametrize(
    "question, lead",
    [
        ("400 gb/s = ? GB/s", "400 Gb/s is 50 GB/s"),
        ("how many GB/s is 400Gbps", "400 Gb/s is 50 GB/s"),
        ("What is 50 GB/s in Gbps?", "50 GB/s is 400 Gb/s"),
        ("convert 3.2 Tb/s to GB/s", "3.2 Tb/s is 400 GB/s"),
        ("Please convert 1.8 TB/s of NVLink bandwidth into Tb/s.", "1.8 TB/s is 14.4 Tb/s"),
        ("800G osfp = 800 gigaBYTES/s right?", "No: 800 Gb/s is 100 GB/s, not 800 GB/s"),
        ("How does NVLink 900 GB/s compare to a 400 Gb/s NDR port?", "400 Gb/s is 50 GB/s; 900 GB/s is 18 times that"),
    ],
)
def test_the_conversion_leads_with_the_customers_numbers(question, lead):
    answer = conversion(question)
    assert answer is not None and answer.text.startswith(lead + ".")
    assert "IEC 80000-13" in answer.source


@pytest.mark.parametrize(
    "question",
    [
        "how many 400G ports does a QM9700 have",
        "is 800G twice 400G",
        "we need 128 h100 and storage at 50 GB/s",
        "what is the bandwidth per GPU in gigabytes for ndr",
    ],
)
def test_questions_with_one_kind_of_unit_are_not_conversions(question):
    assert conversion(question) is None


def test_case_tells_bits_from_bytes_in_short_units():
    assert [(q.value, q.unit) for q in quantities("400 Gb/s, 50 GB/s, 400 gbps, 1 TB/s")] == [
        (400.0, "bits"),
        (50.0, "bytes"),
        (400.0, "bits"),
        (1000.0, "bytes"),
    ]


def test_the_advisor_answers_a_conversion_with_its_source():
    result = service.ask("is a 400G NDR link 400 gigabytes per second per GPU?")
    assert result.answer is not None and result.answer.subject == "units"
    assert result.reply.startswith("**Bits and bytes per second**: No: 400 Gb/s is 50 GB/s")
    assert "_Source: IEC 80000-13" in result.reply
