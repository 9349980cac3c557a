"""'This looks wrong': a reason filed against a stored design, with the versions of the
rulebook, catalogue and price book the design was made from, so whoever reads it later
knows which data to check even after the data changed.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from advisor.storage import store
from rules.models import DesignVersions, Recommendation

MAX_REASON_CHARS = 2000


class FeedbackRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    reason: str = Field(
        min_length=3,
        max_length=MAX_REASON_CHARS,
        description="What looks wrong, in the reader's words (at most 2,000 characters).",
        examples=["The spine count looks too low for 1,024 GPUs."],
    )


class Feedback(BaseModel):
    """A filed report, as stored."""

    model_config = ConfigDict(extra="forbid")
    id: int = Field(description="The report's number.", examples=[17])
    recommendation_id: str = Field(description="The design it is about.", examples=["r_3f9a0c12"])
    reason: str = Field(description="What looks wrong.", examples=["The spine count looks too low."])
    versions: DesignVersions | None = Field(description="The data the design was made from.")
    created_at: str = Field(description="When it was filed (UTC, ISO 8601).", examples=["2026-12-04T15:02:11+00:00"])


def file(rec: Recommendation, reason: str) -> Feedback:
    """Store the reason against rec (a stored design) with its versions."""
    number, created_at = store.save_feedback(rec, reason.strip())
    return Feedback(
        id=number, recommendation_id=rec.id or "", reason=reason.strip(), versions=rec.versions, created_at=created_at
    )
