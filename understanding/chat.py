"""What the chat's own questions and small turns mean, read from the words: leaving the
handoff form ("cancel", "never mind"), the email address in an answer, a request to
compare the candidate fabrics, and "one" that picks a thing rather than counting.

These were regular expressions inside the bot's actions; they live here with the rest of
what reads language, and the actions (bot/actions/handoff.py, recommend.py, respond.py)
call them. Every pattern is linear in the length of the text (tests/test_input_bounds.py
scans this package).

    >>> cancels("No, never mind", asked="contact_email"), cancels("no", asked="handoff_message")
    (True, False)
    >>> email_in("it's jane@acme.example."), asks_to_compare("how does RoCE compare?"), picks_one("which one?")
    ('jane@acme.example', True, True)
"""

from __future__ import annotations

import re
from itertools import pairwise

#: words that may open a cancel without changing it ("no, never mind", "oh ok, cancel")
FILLERS = frozenset({"no", "oh", "ok", "okay", "actually", "sorry", "um", "hmm"})
#: an answer that leaves the form ("cancel", "never mind", "stop asking", "forget it") once
#: its opening FILLERS are dropped, read on the answer's words lower-cased with punctuation
#: as spaces ("Don't!" -> "don t"). The fillers are dropped by a loop, not by a repeated
#: group here, so that searching a long text stays linear.
CANCEL = re.compile(
    r"(?:please )?"
    r"(?:cancel|stop|never ?mind|forget (?:it|about it|that|this)|abort|quit|exit|"
    r"(?:i )?(?:ve )?changed my mind|don ?t (?:bother|send (?:it|anything|that))|do not send(?: it| anything)?)"
    r"(?: (?:it|that|this|the handoff|the request|asking|please|thanks|thank you|then|now))*"
)
#: a plain refusal, which leaves the form when a contact detail is asked (at the message
#: question "no" means nothing to add)
REFUSAL = frozenset(
    {"no", "nope", "nah", "no thanks", "no thank you", "rather not", "i d rather not", "i would rather not"}
)
#: the question of the handoff form at which "no" means "nothing to add", not "cancel"
MESSAGE_QUESTION = "handoff_message"

#: what cannot be part of an address in an answer ("it's <jane@acme.example>, thanks")
_NOT_ADDRESS = re.compile(r"[\s<>()\"',;]+")

#: words that ask for the candidate fabrics side by side ("compare the options")
_COMPARE = re.compile(
    r"\b(?:compar\w*|options?|alternatives?|vs\.?|versus|side\s+by\s+side|other\s+fabrics?|trade-?offs?)\b"
    r"|\bwhich\s+(?:is|one)\s+(?:better|cheaper|faster)",
    re.I,
)

# "which one does our design use?": "one" picks a thing, it is no count
_PICKS_ONE = re.compile(r"\b(?:which|that|this|the|each|every|any)\s+one\b", re.I)


def cancels(answer: str, asked: str | None) -> bool:
    """True when answer, given to the handoff form's question about asked, means leave the form."""
    words = re.sub(r"[^a-z0-9]+", " ", answer.lower()).split()  # "Don't!" -> "don t"
    if asked != MESSAGE_QUESTION and " ".join(words) in REFUSAL:
        return True
    opening = 0
    while opening < len(words) and words[opening] in FILLERS:
        opening += 1
    return bool(words[opening:]) and CANCEL.fullmatch(" ".join(words[opening:])) is not None


def address_in(text: str) -> str | None:
    """The email address inside a text ("it's jane@acme.example." -> the address), if any."""
    for word in _NOT_ADDRESS.split(text):  # split, not searched: linear however long the text
        parts = word.split("@")
        for local, domain in pairwise(parts):
            if local and domain:
                return f"{local}@{domain}".rstrip(".")
    return None


def email_in(text: str) -> str:
    """The email address an answer gives, else the answer as it was (whose problem the
    handoff's check then names)."""
    return address_in(text) or text


def asks_to_compare(text: str) -> bool:
    """The message asks for the candidate fabrics side by side ("vs", "the options")."""
    return _COMPARE.search(text) is not None


def picks_one(text: str) -> bool:
    """ "one" in the message picks a thing ("which one does our design use?"), so no bare
    number in it is a count."""
    return _PICKS_ONE.search(text) is not None
