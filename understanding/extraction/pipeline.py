"""The spaCy pipeline, built once per process: a blank English pipeline with rules only.

    tokenizer (numbers split from units) -> entity_ruler (GPU models,
    systems, fabrics, link speeds, measures, switch gear) -> fabric_gpu_variants (a
    memory size joins its GPU) -> fabric_numbers (NUM) -> fabric_merge_entities (each
    entity becomes one token carrying its value)

No statistical model and nothing downloaded. After the pipeline, every entity is a
single token whose `._.fa_value` is its canonical id ("H100", "DGX H100", "rocev2") or,
for NUM, its number; `._.fa_scale` is the multiplier a number was written with.
"""

from __future__ import annotations

from collections.abc import Set
from functools import lru_cache
from typing import Any, cast

import spacy
from spacy.language import Language
from spacy.pipeline import EntityRuler
from spacy.tokens import Doc, Span, Token

from understanding.extraction import cues, numerals  # noqa: F401 - register the fabric_cues and fabric_numbers factories
from understanding.extraction.numerals import NUMBER_VALUES
from understanding.extraction.resources import compile_pattern, load
from understanding.extraction.tokens import customise_tokenizer

VALUE = "fa_value"
SCALE = "fa_scale"

for _name in (VALUE, SCALE):
    if not Token.has_extension(_name):
        Token.set_extension(_name, default=None)


@lru_cache(maxsize=1)
def nlp() -> Language:
    """The extraction pipeline (built on first use, then shared by the whole process)."""
    pipeline = spacy.blank("en")
    customise_tokenizer(pipeline)
    ruler = cast(
        EntityRuler, pipeline.add_pipe("entity_ruler", config={"validate": True, "phrase_matcher_attr": "LOWER"})
    )
    ruler.add_patterns(entity_patterns(pipeline))
    pipeline.add_pipe("fabric_gpu_variants")
    pipeline.add_pipe("fabric_numbers")
    pipeline.add_pipe("fabric_cues")
    pipeline.add_pipe("fabric_merge_entities")
    return pipeline


@Language.component("fabric_gpu_variants")
def absorb_gpu_variants(doc: Doc) -> Doc:
    """A GPU name followed by its memory size ("A100-80GB", "H100 SXM5 80GB SXM") becomes
    one GPU entity, so "4x A100-80GB per node" reads like "4x A100 per node"."""
    units, after = _gpu_variant_words()
    ents = list(doc.ents)
    grown: list[Span] = []
    changed = False
    index = 0
    while index < len(ents):
        ent = ents[index]
        following = ents[index + 1] if index + 1 < len(ents) else None
        gap = following.start - ent.end if following is not None else -1
        if (
            ent.label_ == "GPU"
            and following is not None
            and following.label_ == "MEASURE"
            and following[-1].lower_ in units
            and (gap == 0 or (gap == 1 and doc[ent.end].text == "-"))
        ):
            end = following.end
            if end < len(doc) and doc[end].lower_ in after:
                end += 1
            grown.append(Span(doc, ent.start, end, label=ent.label_, span_id=ent.id_))
            changed = True
            index += 2
            continue
        grown.append(ent)
        index += 1
    if changed:
        doc.ents = grown
    return doc


@lru_cache(maxsize=1)
def _gpu_variant_words() -> tuple[frozenset[str], frozenset[str]]:
    """Memory units, and variant words that may follow them (data/entities.yaml, gpu)."""
    gpu = load("entities")["gpu"]
    return frozenset(gpu["memory_units"]), frozenset(gpu["after_memory"])


@Language.component("fabric_merge_entities")
def merge_entities(doc: Doc) -> Doc:
    """Merge each entity into one token and put its value on the token."""
    values = doc.user_data.get(NUMBER_VALUES, {})
    with doc.retokenize() as retokenizer:
        for ent in doc.ents:
            if ent.label_ == "NUM":
                quantity = values.get((ent.start, ent.end))
                if quantity is None:
                    continue
                attrs = {VALUE: quantity.value, SCALE: quantity.scale}
            else:
                attrs = {VALUE: ent.id_ or ent.text}
            if len(ent) == 1:  # nothing to merge: a merge costs more than setting the values
                for name, value in attrs.items():
                    ent[0]._.set(name, value)
            else:
                retokenizer.merge(ent, attrs={"_": attrs})
    return doc


def entity_patterns(pipeline: Language) -> list[dict[str, Any]]:
    """EntityRuler patterns from data/entities.yaml.

    Names become phrase patterns (matched on lower case through the ruler's PhraseMatcher,
    a trie, so hundreds of names cost little); speeds and measures are token patterns.
    """
    data = load("entities")
    patterns: list[dict[str, Any]] = []

    gpu = data["gpu"]
    names = {_phrase(pipeline, alias) for model in gpu["models"] for alias in model["aliases"]}
    prefixes = ["", *gpu["prefixes"]]
    suffixes = ["", *gpu["suffixes"]]
    for model in gpu["models"]:
        for alias in model["aliases"]:
            for body in _with_plural(_phrase(pipeline, alias), taken=names):
                for prefix in prefixes:
                    for suffix in suffixes:
                        text = " ".join(part for part in (prefix, body, suffix) if part)
                        patterns.append({"label": gpu["label"], "id": model["id"], "pattern": text})

    system = data["system"]
    for item in system["systems"]:
        for alias in item["aliases"]:
            for body in _with_plural(_phrase(pipeline, alias)):
                for prefix in ("", "nvidia"):
                    text = f"{prefix} {body}".strip()
                    patterns.append({"label": system["label"], "id": item["id"], "pattern": text})

    patterns.extend(
        {"label": fabric["label"], "id": fabric["id"], "pattern": alias}
        for fabric in data["fabric"]
        for alias in fabric["aliases"]
    )

    gear = data["gear"]
    patterns.extend({"label": gear["label"], "id": alias, "pattern": alias} for alias in gear["aliases"])

    for item in data["patterns"]:
        entry = {"label": item["label"], "pattern": compile_pattern(item["pattern"], data["macros"]).tokens}
        if "id" in item:
            entry["id"] = item["id"]
        patterns.append(entry)
    return patterns


def _phrase(pipeline: Language, text: str) -> str:
    """A name as the tokenizer splits it, lower case ("DGX-H100" -> "dgx - h100")."""
    return " ".join(token.lower_ for token in pipeline.make_doc(text))


def _with_plural(phrase: str, taken: Set[str] = frozenset()) -> list[str]:
    """A name and its plural ("dgx h100", "dgx h100s").

    A plural that is another name stays out: "L40S" is not the plural of "L40".
    """
    plural = f"{phrase}s"
    return [phrase] if plural in taken else [phrase, plural]
