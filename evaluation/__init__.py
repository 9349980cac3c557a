"""Scoring the advisor on blind sets nobody tuned it to (tests/data/blind_*.jsonl).

    .venv/bin/python -m evaluation                 # all three sets
    .venv/bin/python -m evaluation knowledge sizing
    .venv/bin/python -m evaluation conversations --failures

Knowledge questions and sizing requests go through `advisor.service.ask`, the path
`POST /v1/ask` and the CLI take; conversations go through the real chat stack (Rasa and
the action server, started on free ports) over Rasa's REST webhook, as a chat user would.

How each item is judged (observable in the reply, nothing else):

- knowledge: the reply contains, case-insensitively, one alternative of every group of
  `expect_all` (a group is a list of alternatives).
- sizing: the message is treated as a sizing request (kind recommendation or
  clarification, never a knowledge answer) and the profile read from it matches every
  field of `expect` (numbers within 0.5 %, strings case-insensitively; a preference for
  `infiniband` is met by any InfiniBand generation). `also_asks` (questions asked inside
  the request) is not a profile field: each must be addressed by the reply's text
  besides the recommendation summary, which must name its longest word.
- conversation turns, by `expect` kind, each also meeting the turn's `expect_all`:
  - recommendation: the reply names a fabric (InfiniBand, RoCE, Ethernet or NVLink) and
    a switch count ("Switches:" followed by a number), i.e. it is a sized design.
  - ask_missing: the reply asks a question ("?") and is not a sized design.
  - knowledge: the reply answers (it is not the fallback, the "no sourced answer" reply,
    "nothing changed" or a goodbye) and is not a sized design.
  - design_answer: the reply answers from the design on the table: not the fallback,
    "nothing changed", the "no recommendation yet" reply or a goodbye. Whether it is the
    right figure is what `expect_all` checks.
  - greeting, goodbye_or_thanks: any non-empty reply that is not the fallback.
  - refusal_or_clarify: the reply is not a sized design and either asks a question or
    says what it cannot do ("can't", "cannot", "couldn't", "outside", "sorry", "need").
- intents: the intent the trained Rasa model gives the message (Rasa's /model/parse on
  the real server, the fallback included) is the labelled one.
"""
