"""`python -m evaluation [knowledge] [sizing] [conversations] [--failures]`: score the
blind sets (see the package docstring for how each item is judged) and print one line
per set, plus each failure with --failures. Exits 0; the scores are the output."""

from __future__ import annotations

import argparse
import sys
import tempfile
import uuid
from pathlib import Path

import httpx

import knowledge
from advisor import service
from advisor.models import AskKind
from advisor.render import markdown
from bot import launch
from evaluation.scoring import (
    DEV_SETS,
    HELD_OUT_SETS,
    SETS,
    Verdict,
    judge_turn,
    load,
    missing_groups,
    profile_mismatches,
    summary_line,
    unanswered_side_questions,
)

SIZING_KINDS = (AskKind.recommendation, AskKind.clarification)


def score_knowledge(path: Path = SETS["knowledge"]) -> list[Verdict]:
    verdicts = []
    for item in load(path):
        reply = service.ask(item["question"]).reply
        missing = missing_groups(reply, item.get("expect_all"))
        why = "missing " + " / ".join("|".join(g) for g in missing) if missing else ""
        verdicts.append(Verdict(id=item["id"], ok=not missing, why=why, text=item["question"], reply=reply))
    return verdicts


def score_sizing(path: Path = SETS["sizing"]) -> list[Verdict]:
    verdicts = []
    for item in load(path):
        result = service.ask(item["text"])
        problems = [] if result.kind in SIZING_KINDS else [f"answered as {result.kind}"]
        expect = dict(item.get("expect") or {})
        also_asks = expect.pop("also_asks", None) or []
        problems += profile_mismatches(expect, result.profile.model_dump())
        extra = result.reply
        if result.recommendation is not None:
            extra = extra.replace(markdown.recommendation_markdown(result.recommendation), "")
        unanswered = unanswered_side_questions(also_asks, extra)
        if unanswered:
            problems.append(f"also asked, not answered: {', '.join(unanswered)}")
        verdicts.append(
            Verdict(id=item["id"], ok=not problems, why="; ".join(problems), text=item["text"], reply=result.reply)
        )
    return verdicts


def score_conversations(path: Path = SETS["conversations"], webhook: str | None = None) -> list[Verdict]:
    """Each turn of each conversation, judged by its expect kind, on the real chat stack
    (started here unless a running stack's REST webhook is given)."""
    if webhook is None:
        with tempfile.TemporaryDirectory(prefix="evaluation-") as workdir, launch.chat_stack(Path(workdir)) as stack:
            return score_conversations(path, stack.webhook)
    verdicts = []
    with httpx.Client(timeout=60) as client:
        for conversation in load(path):
            sender = f"eval-{uuid.uuid4().hex[:10]}"
            for number, turn in enumerate(conversation["turns"], start=1):
                response = client.post(webhook, json={"sender": sender, "message": turn["user"]})
                response.raise_for_status()
                reply = "\n\n".join(m["text"] for m in response.json() if m.get("text"))
                why = judge_turn(turn["expect"], reply, turn.get("expect_all"))
                verdicts.append(
                    Verdict(
                        id=f"{conversation['id']}#{number} ({turn['expect']})",
                        ok=not why,
                        why=why,
                        text=turn["user"],
                        reply=reply,
                    )
                )
    return verdicts


SCORERS = {"knowledge": score_knowledge, "sizing": score_sizing, "conversations": score_conversations}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m evaluation", description=__doc__)
    parser.add_argument("sets", nargs="*", metavar="SET", help=f"any of {', '.join(SCORERS)} (default: all)")
    parser.add_argument("--dev", action="store_true", help="score the development sets (tests/data/dev_*.jsonl)")
    parser.add_argument(
        "--held-out", action="store_true", help="score the held-out blind sets (tests/data/heldout_*.jsonl)"
    )
    parser.add_argument("--failures", action="store_true", help="print every failure with the reply")
    args = parser.parse_args(argv)
    unknown = [name for name in args.sets if name not in SCORERS]
    if unknown:
        parser.error(f"unknown set {', '.join(unknown)}; choose from {', '.join(SCORERS)}")
    knowledge.build()  # a no-op when the database matches its sources
    for name in args.sets or list(SCORERS):
        path = (DEV_SETS if args.dev else HELD_OUT_SETS if args.held_out else SETS)[name]
        if not path.exists():
            print(f"{name}: no {path.name}", flush=True)
            continue
        verdicts = SCORERS[name](path)
        print(summary_line(name, verdicts), flush=True)
        if args.failures:
            for v in verdicts:
                if not v.ok:
                    reply = " ".join(v.reply.split())[:300]
                    print(f"  FAIL {v.id}: {v.text!r}\n    why: {v.why}\n    reply: {reply}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
