"""Everything of ours that reads language: the extractor (free text to a partial
WorkloadProfile, `understanding.extraction`), the one decision of what a message wants
(`understanding.understand`), corrections, elliptical follow-ups and the dialogue context,
and the knowledge search's reading of a question (`understanding.query`). Rasa's own NLU
data stays in bot/data; the NLU components Rasa loads are in bot/components.

Empty on purpose: importing `understanding.query` (the knowledge layer does) loads neither
spaCy nor the rest."""
