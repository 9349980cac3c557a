"""What the extractor returns: the profile it read and where in the text each value came from."""

from __future__ import annotations

import contextlib
import math
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from knowledge import catalogue
from rules.models import ProfileDraft
from understanding.extraction.systems import rack_of


class Span(BaseModel):
    """A piece of the question that produced a field's value (character offsets into the text).

    A value read from two places ("16 nodes ... 8 GPUs per node" gives gpu_count 128) has one
    span for each place.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    field: str = Field(description="ProfileDraft field the text gave (or `size_factor`).", examples=["gpu_count"])
    text: str = Field(description="The text itself, `question[start:end]`.", examples=["128 H100s"])
    start: int = Field(ge=0, description="Offset of the first character.", examples=[26])
    end: int = Field(ge=0, description="Offset just past the last character.", examples=[35])


#: the profile fields a taken-back value is looked for in, in this order ("256 not 128")
CORRECTABLE_FIELDS = (
    "gpu_count",
    "node_count",
    "gpus_per_node",
    "model_params_b",
    "budget_usd",
    "network_budget_usd",
    "tp",
    "pp",
)
#: a corrected size figure keeps the one it goes with and lets the third be derived again:
#: "4 GPUs per node, not 8" on 16 nodes is 16 nodes of 4, "256 not 128" GPUs keeps 8 per node
_SIZE_KEPT_WITH = {"gpu_count": "gpus_per_node", "node_count": "gpus_per_node", "gpus_per_node": "node_count"}


def _with_size_derived(draft: ProfileDraft) -> dict[str, Any]:
    """The draft's values with a missing GPU or server count worked out from the other
    two, as the design it sized shows them (16 servers x 4 GPUs is 64 GPUs)."""
    values = draft.model_dump(exclude_none=True)
    nodes, per_node, gpus = draft.node_count, draft.gpus_per_node, draft.gpu_count
    if gpus is None and nodes is not None and per_node is not None:
        values["gpu_count"] = nodes * per_node
    elif nodes is None and gpus is not None and per_node and gpus % per_node == 0:
        values["node_count"] = gpus // per_node
    return values


def _in_field_units(field: str, value: float) -> float:
    """A number as the field holds it: a model size is read as parameters ("405B" is
    405e9) and held in billions."""
    return value / 1e9 if field == "model_params_b" and value >= 1e6 else value


class Correction(BaseModel):
    """A value the person takes back ("not 128") and, when they gave it bare, the one meant."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    old: float = Field(description="The value taken back.", examples=[128])
    new: float | None = Field(default=None, description="The value meant, when stated bare.", examples=[256])


class SizeAdded(BaseModel):
    """A size grown by a count: "two more racks" is 2 racks, "another 64 GPUs" 64 GPUs."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    count: int = Field(ge=1, description="How many more.", examples=[2])
    unit: Literal["gpus", "nodes", "racks"] = Field(description="What is counted.", examples=["racks"])

    @classmethod
    def of(cls, count: int, word: str) -> SizeAdded:
        """From the unit's word as said ("racks", "DGX", "GPUs")."""
        unit = "racks" if word.startswith("rack") else "gpus" if word.startswith(("gpu", "accel")) else "nodes"
        return cls(count=count, unit=unit)

    def grown(self, earlier: ProfileDraft, server_gpus: int | None, rack_gpus: int | None) -> ProfileDraft | None:
        """The earlier cluster grown by this count, in whole servers, the server shape kept
        (ProfileDraft.scaled); None when earlier turns gave no size, or racks are added to
        servers that do not come in racks of a fixed size. `server_gpus` and `rack_gpus`:
        the GPUs of the model's server and rack (when earlier turns did not say)."""
        per_node = earlier.gpus_per_node or server_gpus
        gpus = earlier.gpu_count or (earlier.node_count * per_node if earlier.node_count and per_node else None)
        if gpus is None:
            return None
        added = {"gpus": self.count, "nodes": self.count * (per_node or 0), "racks": self.count * (rack_gpus or 0)}
        if not added[self.unit]:
            return None
        return earlier.scaled((gpus + added[self.unit]) / gpus)


class Extraction(BaseModel):
    """The workload details found in one question, with their spans."""

    model_config = ConfigDict(extra="forbid")

    profile: ProfileDraft = Field(default_factory=ProfileDraft, description="What the question states.")
    spans: list[Span] = Field(default_factory=list, description="Where each value came from, in text order.")
    rejected: list[Span] = Field(
        default_factory=list,
        description='Sizes the question states that are outside the allowed range ("0 GPUs", '
        '"5 million GPUs"); not used, so the person can be told why.',
    )

    size_factor: float | None = Field(
        default=None,
        gt=0,
        description='A relative change of the cluster\'s size ("double it" 2, "half as many" 0.5), for the '
        "size of earlier turns; set only when the text states no size of its own.",
        examples=[2.0],
    )

    correction: Correction | None = Field(
        default=None, description='A value taken back ("sorry, 256 not 128"), for the profile of earlier turns.'
    )

    size_added: SizeAdded | None = Field(
        default=None,
        description='A growth of the cluster ("two more racks", "another 64 GPUs"), for the size of earlier '
        "turns; set only when the text states no size of its own.",
    )

    def corrected_field(self, earlier: ProfileDraft) -> str | None:
        """The field of earlier turns whose value this text takes back, if any."""
        if self.correction is None:
            return None
        known = _with_size_derived(earlier)
        # a field the text gives a new value of comes first: "the servers have 4 GPUs each,
        # not 8" takes back the 8 GPUs a server, not the 8 servers that also held 8
        stated = [name for name in CORRECTABLE_FIELDS if getattr(self.profile, name, None) is not None]
        for name in dict.fromkeys([*stated, *CORRECTABLE_FIELDS]):
            value = known.get(name)
            if value is not None and math.isclose(float(value), _in_field_units(name, self.correction.old)):
                return name
        return None

    def applied_to(self, earlier: ProfileDraft) -> ProfileDraft:
        """The profile of earlier turns updated by this text: a value it takes back
        replaced by the one meant, the rest kept; else its relative size change applied to
        their size ("double it"), then the details it states. A change the contract cannot
        hold (past the largest cluster) is left out."""
        field = self.corrected_field(earlier)
        if field is not None:
            with contextlib.suppress(ValidationError):
                return self._corrected(earlier, field)
        base = earlier
        if self.size_factor is not None:
            with contextlib.suppress(ValidationError):
                base = earlier.scaled(self.size_factor)
        if self.size_added is not None:
            with contextlib.suppress(ValidationError):
                shape, server = rack_of(earlier.gpu_model), catalogue.server_for(earlier.gpu_model)
                rack_gpus = shape.unit_gpus if shape else None
                base = self.size_added.grown(earlier, server.gpus if server else None, rack_gpus) or base
        return base.merged(self.profile)

    def _corrected(self, earlier: ProfileDraft, field: str) -> ProfileDraft:
        assert self.correction is not None
        updates = self.profile.model_dump(exclude_none=True)
        if self.correction.new is not None and field not in updates:
            kind = ProfileDraft.model_fields[field].annotation
            new = _in_field_units(field, self.correction.new)
            updates[field] = round(new) if "int" in str(kind) and new.is_integer() else new
        base = _with_size_derived(earlier)
        if field in _SIZE_KEPT_WITH:
            kept = _SIZE_KEPT_WITH[field]
            if field == "gpus_per_node" and earlier.node_count is None and earlier.gpu_count is not None:
                # "64 GPUs, 8 per server" then "4 GPUs each, not 8": the GPU count was stated,
                # the server count only worked out from it, so the GPUs stay and the servers follow
                kept = "gpu_count"
            for name in set(_SIZE_KEPT_WITH) - {field, kept}:
                base.pop(name, None)
            if field not in updates and set(updates) & set(_SIZE_KEPT_WITH):
                # the number kept, its unit corrected ("64 nodes, not 64 GPUs"): the value
                # taken back was of another size field, which is worked out again from the
                # one meant and the server shape
                base.pop(field, None)
        return ProfileDraft.model_validate({**base, **updates})

    def spans_for(self, field: str) -> list[Span]:
        """The spans that produced `field` (empty when the field was not found)."""
        return [span for span in self.spans if span.field == field]
