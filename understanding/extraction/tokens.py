"""Tokenisation: spaCy's English tokenizer, plus splitting numbers from the units glued to them.

People write "16k", "$4M", "70B", "400GbE", "8xH100", "4GPUs" and "2k+" as one word. The
patterns read numbers and units as separate tokens, so a token that starts with digits
is split after them ("8xH100" -> "8", "x", "H100"). Ordinals ("2nd") stay whole, and
so do names that start with a letter ("H100s", "L40S", "MI300X").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import cast

from spacy.lang.en import English
from spacy.language import Language
from spacy.tokenizer import Tokenizer
from spacy.tokens import Doc, Token
from spacy.util import compile_infix_regex, compile_prefix_regex

# "Llama-70B", "ConnectX-7", "GPT-3": a hyphen between a letter and a digit splits too,
# as spaCy already does between two digits and before a letter.
# "gpus=160", "budget=$1M": key=value notes split at the sign.
EXTRA_INFIXES = [r"(?<=[A-Za-z])-(?=[0-9])", r"(?<=[A-Za-z0-9])=(?=[A-Za-z0-9$])"]
# "A100 x64": a times sign glued before a count splits off ("x86" is a CPU, not 86 of anything).
# "w/4 GPUs": Slack's "with" glued to what it is with splits off.
EXTRA_PREFIXES = [r"[x×](?=\d)(?!86\b)", r"w/(?=\w)"]

_NUMBER_HEAD = re.compile(r"^(?P<pre>[~≈<>]?[$€£]?)(?P<num>\d+(?:,\d{3})*(?:\.\d+)?)(?P<rest>.*)$", re.DOTALL)
# "GbE.", "RoCE.", "L40S.": a word with a digit or an inner capital, then a full stop
_TECH_WITH_STOP = re.compile(r"^(?=[^.]*(?:\d|.[A-Z]))[^.]{2,}\.$")
# the last letter of a hyphenated name, then a full stop ("Spectrum-X.", "NVLink-C.")
_NAME_LETTER_WITH_STOP = re.compile(r"^[^\W\d_]\.$")
_ORDINAL = re.compile(r"^(?:st|nd|rd|th)$", re.IGNORECASE)
#: the longest run of non-space characters spaCy's tokenizer reads in one go (a URL fits)
MAX_WORD = 100
_LONG_WORD = re.compile(rf"\S{{{MAX_WORD + 1},}}")
_PIECES = re.compile(r"[^\W\d_]+|\d+(?:\.\d+)?|\S", re.UNICODE)


def split_word(text: str) -> list[str]:
    """The pieces a word is read as: `"8xH100"` -> `["8", "x", "H100"]`, `"2k+"` -> `["2", "k", "+"]`."""
    if _TECH_WITH_STOP.match(text):
        # spaCy keeps the full stop on "L40S.", "70B." and "GbE." as if they were abbreviations
        return [*split_word(text[:-1]), "."]
    match = _NUMBER_HEAD.match(text)
    if match is None:
        return [text]
    pre, number, rest = match["pre"], match["num"], match["rest"]
    if not pre and (not rest or _ORDINAL.match(rest)):
        return [text]
    pieces = [*pre, number]
    # "8x8x400G": a chain of counts joined by "x", read in a loop (not by recursion: a
    # 2,000-character "1x1x1x..." must not exhaust the stack)
    while rest[:1] in ("x", "×") and len(rest) > 1 and rest[1].isalnum():
        pieces.append(rest[0])
        tail = rest[1:]
        link = _NUMBER_HEAD.match(tail) if tail[0].isdigit() else None
        if link is None or link["pre"] or not link["rest"] or _ORDINAL.match(link["rest"]):
            pieces.extend([tail] if tail[0].isdigit() else _trailing(tail))
            rest = ""
            break
        pieces.append(link["num"])
        rest = link["rest"]
    else:
        if rest:
            pieces.extend(_PIECES.findall(rest))
    return pieces if "".join(pieces) == text else [text]


def _trailing(text: str) -> list[str]:
    """A name after "x" ("H100s.") keeps its letters and digits; punctuation after it splits off."""
    match = re.match(r"^([\w.\-]*\w)(.*)$", text, re.DOTALL)
    if match is None or not match.group(2):
        return [text]
    return [match.group(1), *_PIECES.findall(match.group(2))]


def in_pieces(base: Tokenizer, text: str) -> Doc:
    """`base`'s tokens of `text`, with words over MAX_WORD characters read in pieces.

    spaCy looks for a word's suffixes by searching the whole remaining word each time,
    so one long run of punctuation ("((((...)))") costs the square of its length
    (2,000 brackets: over a second). A long word is tokenized as pieces of MAX_WORD
    characters, split by a space that is then taken out again: the Doc holds the
    same text, character for character."""
    if not _LONG_WORD.search(text):
        whole: Doc = base(text)
        return whole
    cuts: set[int] = set()  # where a space was put in, as offsets in the cut text
    parts: list[str] = []
    at = 0
    for match in _LONG_WORD.finditer(text):
        parts.append(text[at : match.start()])
        for start in range(match.start(), match.end(), MAX_WORD):
            parts.append(text[start : min(start + MAX_WORD, match.end())])
            if start + MAX_WORD < match.end():
                cuts.add(sum(map(len, parts)))
                parts.append(" ")
        at = match.end()
    parts.append(text[at:])
    cut = base("".join(parts))
    words = [token.text for token in cut]
    spaces = [bool(token.whitespace_) and token.idx + len(token) not in cuts for token in cut]
    return Doc(base.vocab, words=words, spaces=spaces)


class PiecewiseTokenizer:
    """spaCy's tokenizer, with long words read in pieces (`in_pieces`): for the plain
    English tokenizers that match phrases (understanding.dialogue, .corrections, .small_talk)."""

    def __init__(self, base: Tokenizer) -> None:
        self.base = base
        self.vocab = base.vocab

    def __call__(self, text: str) -> Doc:
        return in_pieces(self.base, text)


def plain_english() -> English:
    """A blank English pipeline whose tokenizer reads long words in pieces."""
    nlp = English()
    nlp.tokenizer = PiecewiseTokenizer(cast(Tokenizer, nlp.tokenizer))
    return nlp


def _joined_by_hyphen(token: Token) -> bool:
    """A hyphen written straight before the next word ("Spectrum-X"), not a dash between words."""
    return token.text == "-" and not token.whitespace_


class NumberSplittingTokenizer:
    """spaCy's tokenizer, then `split_word` on words that start with digits."""

    def __init__(self, base: Tokenizer) -> None:
        self.base = base
        self.vocab = base.vocab

    def __call__(self, text: str) -> Doc:
        doc: Doc = self._base(text)
        if not any(token.text[:1].isdigit() or token.text[:1] in "~≈<>" or token.text.endswith(".") for token in doc):
            return doc
        words: list[str] = []
        spaces: list[bool] = []
        changed = False
        for token in doc:
            if _NAME_LETTER_WITH_STOP.match(token.text) and token.i > 0 and _joined_by_hyphen(doc[token.i - 1]):
                # "Spectrum-X.": spaCy keeps "X." whole as if it were an initial
                pieces = [token.text[0], "."]
            else:
                pieces = split_word(token.text) if not token.is_space else [token.text]
            changed = changed or len(pieces) > 1
            words.extend(pieces)
            spaces.extend([False] * (len(pieces) - 1) + [bool(token.whitespace_)])
        if not changed:
            return doc
        return Doc(self.vocab, words=words, spaces=spaces)

    def _base(self, text: str) -> Doc:
        """spaCy's tokenizer, with words over MAX_WORD characters read in pieces
        (`in_pieces`)."""
        return in_pieces(self.base, text)

    def pipe(self, texts: Iterable[str], batch_size: int = 1000) -> Iterator[Doc]:
        for text in texts:
            yield self(text)


def customise_tokenizer(nlp: Language) -> None:
    """Install the extra infix rules and the number-splitting step on `nlp`."""
    tokenizer = cast(Tokenizer, nlp.tokenizer)  # a blank pipeline's is spaCy's Tokenizer
    infixes = [*(nlp.Defaults.infixes or ()), *EXTRA_INFIXES]
    tokenizer.infix_finditer = compile_infix_regex(infixes).finditer
    prefixes = [*(nlp.Defaults.prefixes or ()), *EXTRA_PREFIXES]
    tokenizer.prefix_search = compile_prefix_regex(prefixes).search
    nlp.tokenizer = NumberSplittingTokenizer(tokenizer)
