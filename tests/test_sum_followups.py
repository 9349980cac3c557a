"""A follow-up that changes one number of a sum ("and with 128 GPUs?", "what about 32 GB?",
"and at 50 GB/s?") does the sum again with it, through `ask` (the API's, the CLI's and the
chat's path); any other follow-up is read as before."""

from __future__ import annotations

from advisor import service
from advisor.models import AskResult


def _then(first: AskResult, text: str) -> AskResult:
    return service.ask(text, profile=first.profile, context=first.context)


def test_a_new_rank_count_size_or_rate_redoes_the_sum() -> None:
    first = service.ask("busbw is 45 gb/s per gpu on 64 gpus. how long does a 16 gb allreduce take")
    assert first.reply.startswith("**All-reduce time") and "About 0.7 s" in first.reply
    ranks = _then(first, "and with 128 gpus?")
    assert "n = 128 GPUs" in ranks.reply and "706 ms" in ranks.reply
    size = _then(ranks, "what about 32 gb?")
    assert "32 GB x 1.98 / 45 GB/s = 1.41 s" in size.reply
    rate = _then(service.ask("all-reduce of a 1 GB buffer across 8 GPUs, busbw is 100 GB/s"), "and at 50 GB/s?")
    assert "About 35 ms" in rate.reply


def test_a_follow_up_without_a_number_is_not_a_sum() -> None:
    first = service.ask("all-reduce of a 1 GB buffer across 8 GPUs, busbw is 100 GB/s")
    assert "Priority Flow Control" in _then(first, "what is pfc").reply
