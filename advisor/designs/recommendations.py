"""Recommending and fetching stored recommendations: the part of the service that needs
no language understanding, so the CLI's `recommend` starts without loading spaCy.

`advisor.service` re-exports both functions; the API, the bot and the CLI call them
through either module.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from advisor.designs.quote import QuoteTerms, quoted
from advisor.storage import store
from rules import engine, growth
from rules.models import Expansion, ProfileDraft, Recommendation, WorkloadProfile
from rules.servers import resolve

# Designs remembered per process (see `_designed`).
MEMO_SIZE = 256


def complete_profile(draft: ProfileDraft) -> WorkloadProfile:
    """The draft as a complete profile, sized against the named server (GPUs per node)
    and checked against it. Raises pydantic.ValidationError naming the field to fix."""
    return resolve(draft)


def recommend(
    profile: WorkloadProfile,
    save: bool = True,
    terms: QuoteTerms | None = None,
    on_design: Callable[[Recommendation], None] | None = None,
) -> Recommendation:
    """The explained recommendation for profile, quoted under terms (the customer's
    name, prices and discount; none by default) and stored so its id can be shared.

    `on_design` is called with the engine's design the moment it exists, before it is
    quoted (the alternative switches are designed too) and stored: the CLI prints the
    design's first line there. Storing runs on every call (an INSERT OR IGNORE under the
    content-hash id), so the id handed out is always in the current database file, even
    one replaced since."""
    designed = _designed(profile.model_dump_json())
    if on_design is not None:
        on_design(designed)
    rec = quoted(designed, terms)
    return store.save(rec) if save else rec


@lru_cache(maxsize=MEMO_SIZE)
def _designed(profile_json: str) -> Recommendation:
    """A recommendation is a pure function of the profile (the rules and the knowledge
    are fixed for a process's life), so a profile seen before is not sized again."""
    return engine.recommend(WorkloadProfile.model_validate_json(profile_json))


def get_recommendation(rec_id: str) -> Recommendation | None:
    return store.load(rec_id)


def expand(rec_id: str, gpus: int) -> Expansion | None:
    """The stored design `rec_id` grown to `gpus` GPUs in all: its fabric, switches and
    cabling kept, only what is added listed (and what must be re-cabled, where the larger
    size crosses a tier or switch boundary). The larger design is stored under its own id.
    None when no design has that id; ValueError (naming `gpus`) when `gpus` does not
    exceed the stored design's GPUs."""
    stored = store.load(rec_id)
    if stored is None:
        return None
    bigger = recommend(resolve(growth.expanded_profile(stored, gpus)))
    added, notes = growth.expansion(stored, bigger)
    return Expansion(
        from_id=rec_id,
        id=bigger.id or "",
        gpus_before=stored.profile.gpu_count or 1,
        step=added,
        keeps_cabling=not added.recabling,
        notes=notes,
    )
