"""Models of the advisor's question-answering contract (`ask`), shared by the REST API,
the action server and the CLI so that all three answer the same question the same way.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from rules.models import ProfileDraft, Recommendation

MAX_QUESTION_CHARS = 2000


class AskKind(StrEnum):
    recommendation = "recommendation"
    answer = "answer"
    clarification = "clarification"
    design_answer = "design_answer"
    out_of_scope = "out_of_scope"  # a task that is not the advisor's: declined, with what it does
    small_talk = "small_talk"  # a greeting, thanks or goodbye: answered in kind, the context kept


class RelatedEntry(BaseModel):
    """A second knowledge entry the search ranked almost as high as the answer's."""

    model_config = ConfigDict(extra="forbid")
    topic: str = Field(description="The entry's title.", examples=["Adaptive routing (InfiniBand)"])
    text: str = Field(
        description="The entry's text.",
        examples=["Quantum-2 switches re-route packets around congested links, set by the subnet manager."],
    )
    source: str = Field(description="Where the fact comes from.", examples=["NVIDIA UFM documentation"])


class Answer(BaseModel):
    """A knowledge-base answer to a question, with where it comes from."""

    model_config = ConfigDict(extra="forbid")
    text: str = Field(description="The answer.", examples=["PFC pauses transmission when buffers fill..."])
    topic: str = Field(description="Knowledge entry answered from.", examples=["PFC"])
    subject: str = Field(description="Knowledge subject of the entry.", examples=["glossary"])
    source: str = Field(
        description="Where the fact comes from.", examples=["Seed guide, 'Priority Flow Control (PFC)'"]
    )
    note: str = Field(
        default="",
        description="Where the seed guide and the vendor document differ, or how a figure was derived (empty when "
        "there is nothing to add); shown with the answer, so a claim of the guide is never repeated uncorrected.",
        examples=["The guide names Quantum-3 switches for NDR. Per NVIDIA, NDR switches are Quantum-2 (QM9700)."],
    )
    not_covered: list[str] = Field(
        default_factory=list,
        description="Terms of the question no knowledge entry mentions; when there are any, this entry is "
        "the closest the knowledge base has, not an answer to them.",
        examples=[["MTU"]],
    )
    confident: bool = Field(
        default=True,
        description="False when the entry may not answer the question (a low search score, or none of the "
        "technologies the question names appears in it): the reply then says it is not sure and asks.",
        examples=[True],
    )
    related: list[RelatedEntry] = Field(
        default_factory=list,
        description="An entry that scored almost as high (at least advisor.service.RELATED_SHARE of the answer's "
        "score), shown after the answer: the question may mean it.",
    )


#: a stored recommendation's id as the context carries it (empty when there is none)
StoredId = Annotated[str, StringConstraints(max_length=64, pattern=r"^[A-Za-z0-9_-]*$")]


class DialogueContext(BaseModel):
    """What the last answer was about (understanding.dialogue). Opaque to clients: send it back
    unchanged with the next question, so a follow-up ("and ECN?", "is it finished?") can
    lean on it; the API keeps no conversation state."""

    model_config = ConfigDict(extra="forbid")

    question: str = Field(
        default="",
        max_length=2 * MAX_QUESTION_CHARS,
        description="The last question answered, as it was understood (what it left out filled in).",
        examples=["what is ultra ethernet?"],
    )
    topic: str = Field(
        default="", max_length=300, description="The title of the entry or design that answered it.", examples=["UEC"]
    )
    entry_id: str = Field(
        default="",
        max_length=120,
        pattern=r"^[a-z0-9][a-z0-9._-]*$|^$",
        description="The knowledge entry that answered it (empty when none).",
        examples=["glossary-uec"],
    )
    fabric: str = Field(
        default="",
        max_length=40,
        pattern=r"^[a-z0-9_]*$",
        description="The fabric it was about (a fabric preference value: infiniband, rocev2, ethernet, ...).",
        examples=["infiniband"],
    )
    recommendation_id: StoredId = Field(
        default="",
        description="The design on the table: a follow-up about it ('what connects them?') is answered from it.",
        examples=[""],
    )
    previous_recommendation_id: StoredId = Field(
        default="",
        description="The design the one on the table replaced (a what-if, a correction, a growth): 'what changed?'.",
        examples=[""],
    )
    about: Literal["", "knowledge", "design"] = Field(
        default="",
        description="What the last answer was: a knowledge entry or the design on the table.",
        examples=["knowledge"],
    )
    unit_servers: int = Field(
        default=0,
        strict=True,
        ge=0,
        le=256,
        description="The servers per scalable unit the customer stated ('five SUs of 32 systems'), 0 when none: "
        "a later 'two SUs' counts units of that size.",
        examples=[0],
    )
    sized_in: Literal["", "gpus", "servers"] = Field(
        default="",
        description="Whether the customer gave the cluster's size in GPUs ('1,520 L40S, eight per server') or in "
        "servers ('190 servers of 8'): a later per-server correction keeps the count they gave.",
        examples=["gpus"],
    )


class Change(BaseModel):
    """One profile field a message changed, with its value before and after (understanding.corrections)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    field: str = Field(description="The profile field.", examples=["gpu_count"])
    label: str = Field(description="How the reply names it.", examples=["GPUs"])
    before: str = Field(description="Its value before, as shown.", examples=["128"])
    after: str = Field(description="Its value after, as shown.", examples=["256"])


class QuickReply(BaseModel):
    """A next step offered after a design (a button in the chat): its title, and the words
    it sends, which the advisor reads as if typed."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    title: str = Field(description="The button's label.", examples=["Download BOM"])
    payload: str = Field(description="The words sent when it is pressed.", examples=["export the bill of materials"])


class AskRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    question: str = Field(
        min_length=1,
        max_length=MAX_QUESTION_CHARS,
        description="What the person asked, in their words (at most 2,000 characters).",
        examples=["We will pretrain a 70B model on 128 H100s. What network do we need?"],
    )
    profile: ProfileDraft | None = Field(
        default=None, description="What earlier turns established; merged with this question."
    )
    recommendation_id: str | None = Field(
        default=None,
        max_length=64,
        description='The design on the table, for questions about it ("price?", "what MTU do we set?").',
        examples=[None],
    )
    context: DialogueContext | None = Field(
        default=None, description="The `context` of the previous answer, sent back unchanged (for follow-ups)."
    )


class AskResult(BaseModel):
    model_config = ConfigDict(extra="forbid")
    kind: AskKind = Field(description="What the reply is.", examples=["recommendation"])
    profile: ProfileDraft = Field(description="What was understood, merged with the given profile.")
    missing: list[str] = Field(
        default_factory=list,
        description="Profile fields still needed to size the cluster.",
        examples=[["gpu_count"]],
    )
    recommendation: Recommendation | None = Field(
        default=None, description="When kind is recommendation, or the design a design_answer is about."
    )
    answer: Answer | None = Field(
        default=None,
        description="When kind is answer; with a recommendation, the answer to a question asked inside the request.",
    )
    reply: str = Field(
        description="Markdown a person reads.", examples=["**InfiniBand NDR**, rail-optimized fat-tree ..."]
    )
    context: DialogueContext = Field(
        default_factory=DialogueContext,
        description="What this answer was about: send it back with the next question for a follow-up to lean on.",
    )
    quick_replies: list[QuickReply] = Field(
        default_factory=list,
        description="Next steps to offer after a design (Download BOM, Printable report, Compare, Why): send a "
        "payload as the next question.",
    )
    changed: list[Change] = Field(
        default_factory=list,
        description='What a correction of earlier turns changed ("sorry, 256 not 128": GPUs 128 -> 256); the reply '
        "leads with it.",
    )
    decided_by: str = Field(
        default="",
        description="Which rule of the advisor's decision rules (understanding/decisions.yaml) decided what the question wants.",
        examples=["about_shown_design"],
    )
