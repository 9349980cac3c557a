"""The compute link speed as a profile field (`link_gbps`, "what if we use 800G?"):
read where it is asked for, designed at (and explained by the rule that honoured it),
and refused with the reason and the platforms that can where the NICs cannot run it."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from advisor.designs.recommendations import recommend
from rules.models import ProfileDraft
from rules.servers import resolve
from understanding.extraction import extract


def design(gpu: str, gbps: int | None):  # type: ignore[no-untyped-def]
    return recommend(
        resolve(ProfileDraft(workload="training", gpu_count=128, gpu_model=gpu, link_gbps=gbps)), save=False
    )


@pytest.mark.parametrize(
    ("text", "gbps"),
    [
        ("what if we use 800G?", 800),
        ("and with 200G links?", 200),
        ("switch to 400 Gb/s ports", 400),
        ("what optics are used for 800G links inside a row?", None),  # asks about, not for
        ("NDR versus XDR: when does moving to 800G make sense?", None),
        ("explain whether ConnectX-8 at 800G is needed", None),
        ("not 800G links", None),
    ],
)
def test_a_link_speed_is_read_where_it_is_asked_for(text: str, gbps: int | None) -> None:
    assert extract(text).profile.link_gbps == gbps


def test_a_slower_speed_than_the_nics_is_designed_and_explained_by_the_request() -> None:
    rec = design("B300", 400)
    assert rec.fabric.link_gbps == 400 and "NDR" in rec.fabric.name
    rules = [reason.rule_id for reason in rec.explanation]
    assert "asked-link-400g-infiniband" in rules
    assert "ib-xdr-matches-nic" not in rules  # no reason claims the 800G the design does not use


def test_a_faster_speed_than_the_nics_is_refused_naming_the_platforms_that_can() -> None:
    with pytest.raises(ValidationError) as refused:
        design("H100", 800)
    message = str(refused.value)
    assert "ConnectX-7 NICs run at most 400 Gb/s" in message
    assert "HGX B300 8-GPU (ConnectX-8)" in message and "GB300 NVL72 (ConnectX-8)" in message


def test_100g_on_infiniband_is_said_to_run_as_hdr() -> None:
    rec = design("A100", 100)
    assert any("no 100 Gb/s generation" in warning for warning in rec.warnings)


def test_only_speeds_adapters_are_built_for_are_a_profile_value() -> None:
    with pytest.raises(ValidationError):
        ProfileDraft(link_gbps=300)
