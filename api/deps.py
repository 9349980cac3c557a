"""Shared objects handed to endpoints as dependencies: the advisor service and the
knowledge base. Tests or another deployment can swap any of them
with `app.dependency_overrides`.

The providers are `async def` on purpose: a plain-`def` dependency would cost a hop
to the thread pool on every request for nothing.
"""

from __future__ import annotations

from typing import Annotated, Any, Protocol

from fastapi import Depends

import knowledge
from advisor import service
from advisor.designs.quote import QuoteTerms
from advisor.models import AskResult, DialogueContext
from rules.models import Expansion, ProfileDraft, Recommendation, WorkloadProfile


class AdvisorService(Protocol):
    def recommend(
        self, profile: WorkloadProfile, save: bool = True, terms: QuoteTerms | None = None
    ) -> Recommendation: ...
    def ask(
        self,
        question: str,
        profile: ProfileDraft | None = None,
        recommendation_id: str | None = None,
        context: DialogueContext | None = None,
    ) -> AskResult: ...
    def get_recommendation(self, rec_id: str) -> Recommendation | None: ...
    def expand(self, rec_id: str, gpus: int) -> Expansion | None: ...


class KnowledgeBase(Protocol):
    def search(self, text: str, limit: int = 5) -> list[knowledge.Entry]: ...
    def subjects(self) -> list[str]: ...
    def subject(self, name: str) -> list[dict[str, Any]]: ...


async def get_service() -> AdvisorService:
    return service  # the module satisfies the protocol


async def get_knowledge() -> KnowledgeBase:
    return knowledge


Service = Annotated[AdvisorService, Depends(get_service)]
Knowledge = Annotated[KnowledgeBase, Depends(get_knowledge)]
