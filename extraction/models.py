"""What the extractor returns: the profile it read and where in the text each value came from."""

from __future__ import annotations

import contextlib

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from rules.models import ProfileDraft


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

    def applied_to(self, earlier: ProfileDraft) -> ProfileDraft:
        """The profile of earlier turns updated by this text: its relative size change
        applied to their size ("double it"), then the details it states. A change the
        contract cannot hold (past the largest cluster) is left out."""
        base = earlier
        if self.size_factor is not None:
            with contextlib.suppress(ValidationError):
                base = earlier.scaled(self.size_factor)
        return base.merged(self.profile)

    def spans_for(self, field: str) -> list[Span]:
        """The spans that produced `field` (empty when the field was not found)."""
        return [span for span in self.spans if span.field == field]
