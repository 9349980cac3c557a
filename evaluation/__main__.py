"""`python -m evaluation [knowledge] [sizing] [conversations] [intents] [--set S] [--failures]`: score the
blind sets (see the package docstring for how each item is judged) and print one line
per set, plus each failure with --failures. `python -m evaluation topics [--map PATH]`:
coverage of the topic map (knowledge/topics.yaml) per topic, group and overall
(evaluation/topics.py). Exits 0; the scores are the output."""

from __future__ import annotations

import argparse
import sys
import tempfile
import uuid
from collections.abc import Callable
from pathlib import Path

import httpx

import knowledge
import knowledge.topics
from advisor import service
from advisor.models import AskKind
from advisor.render import markdown
from bot import launch
from core.settings import settings
from evaluation import topics as topic_coverage
from evaluation.scoring import (
    COLLECTIONS,
    Verdict,
    judge_turn,
    load,
    missing_groups,
    profile_mismatches,
    set_path,
    summary_line,
    unanswered_side_questions,
)

SIZING_KINDS = (AskKind.recommendation, AskKind.clarification)


def score_knowledge(path: Path) -> list[Verdict]:
    verdicts = []
    for item in load(path):
        result = service.ask(item["question"])
        reply = result.reply
        missing = missing_groups(reply, item.get("expect_all"))
        why = "missing " + " / ".join("|".join(g) for g in missing) if missing else ""
        # an answer that says it is not sure, or that the base has nothing on a term, is no answer
        hit = result.answer
        answered = hit is not None and hit.confident and not hit.not_covered
        verdicts.append(
            Verdict(id=item["id"], ok=not missing, why=why, text=item["question"], reply=reply, answered=answered)
        )
    return verdicts


def score_sizing(path: Path) -> list[Verdict]:
    verdicts = []
    for item in load(path):
        result = service.ask(item["text"])
        problems = [] if result.kind in SIZING_KINDS else [f"answered as {result.kind}"]
        expect = dict(item.get("expect") or {})
        also_asks = expect.pop("also_asks", None) or []
        # what was sized: the recommendation's profile, where the hardware catalogue filled in
        # the server shape ("8 h100 boxes" is 8 servers of 8 GPUs), else what was read
        sized = result.recommendation.profile if result.recommendation is not None else result.profile
        problems += profile_mismatches(expect, sized.model_dump())
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


def on_chat_stack(score: Callable[[Path, str, str], list[Verdict]], path: Path) -> list[Verdict]:
    """Score a set on a chat stack (model, action server, Rasa) started for it and stopped after."""
    with tempfile.TemporaryDirectory(prefix="evaluation-") as workdir, launch.chat_stack(Path(workdir)) as stack:
        return score(path, stack.rasa.url, stack.token)


def rasa_auth(token: str | None) -> dict[str, str]:
    """The query parameter Rasa's HTTP API and REST channel need (docs/security.md)."""
    token = token or settings.rasa_token
    return {"token": token} if token else {}


def score_conversations(path: Path, rasa: str | None = None, token: str | None = None) -> list[Verdict]:
    """Each turn of each conversation, judged by its expect kind, on the real chat stack
    (started here unless a running Rasa's URL is given; its token: FABRIC_ADVISOR_RASA_TOKEN
    or var/rasa-token)."""
    if rasa is None:
        return on_chat_stack(score_conversations, path)
    webhook = f"{rasa}/webhooks/rest/webhook"
    verdicts = []
    with httpx.Client(timeout=60, params=rasa_auth(token)) as client:
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


def score_intents(path: Path, rasa: str | None = None, token: str | None = None) -> list[Verdict]:
    """Each message's intent as the trained model on the real Rasa server gives it
    (/model/parse, after the fallback classifier), against its label."""
    if rasa is None:
        return on_chat_stack(score_intents, path)
    verdicts = []
    with httpx.Client(timeout=60, params=rasa_auth(token)) as client:
        for item in load(path):
            response = client.post(f"{rasa}/model/parse", json={"text": item["text"]})
            response.raise_for_status()
            got = (response.json().get("intent") or {}).get("name") or ""
            verdicts.append(
                Verdict(
                    id=item["id"],
                    ok=got == item["intent"],
                    why="" if got == item["intent"] else f"expected {item['intent']}, got {got}",
                    text=item["text"],
                    reply=got,
                )
            )
    return verdicts


SCORERS = {
    "knowledge": score_knowledge,
    "sizing": score_sizing,
    "conversations": score_conversations,
    "intents": score_intents,
}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m evaluation", description=__doc__)
    parser.add_argument(
        "sets",
        nargs="*",
        metavar="SET",
        help=f"any of {', '.join(SCORERS)} (default: all), or topics (the topic map's coverage)",
    )
    parser.add_argument(
        "--set",
        dest="collection",
        choices=COLLECTIONS,
        default="blind",
        help="which collection: tests/data/<SET>_<kind>.jsonl (default: blind, the first blind set)",
    )
    parser.add_argument("--dev", action="store_true", help="the development sets (same as --set dev)")
    parser.add_argument("--held-out", action="store_true", help="the held-out blind sets (same as --set heldout)")
    parser.add_argument("--failures", action="store_true", help="print every failure with the reply")
    parser.add_argument(
        "--map", type=Path, default=knowledge.topics.DEFAULT, help="the topic map for `topics` (default: %(default)s)"
    )
    args = parser.parse_args(argv)
    unknown = [name for name in args.sets if name not in SCORERS and name != "topics"]
    if unknown:
        parser.error(f"unknown set {', '.join(unknown)}; choose from {', '.join(SCORERS)}")
    knowledge.build()  # a no-op when the database matches its sources
    for name in args.sets or list(SCORERS):
        if name == "topics":
            topic_map = knowledge.topics.load(args.map)
            rows = topic_coverage.coverage(topic_map)
            print("\n".join(topic_coverage.report_lines(topic_map, rows, failures=args.failures)), flush=True)
            continue
        collection = "dev" if args.dev else "heldout" if args.held_out else args.collection
        path = set_path(collection, name)
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
