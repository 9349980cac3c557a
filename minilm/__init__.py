"""all-MiniLM-L6-v2 sentence embeddings in numpy (`minilm.embedding`).

Its own package because it runs in both environments: ours (the knowledge search) and
Rasa's Python 3.10 (the NLU featurizer in bot/components), so it imports nothing of ours."""
