"""The handoff through the real chat: Rasa (its env) and the action server (our env), the
action server sending to a real local SMTP server, webhook sink and Slack stand-in (one of
them down in the second stack). The contact details are asked for, a malformed email is
asked again, a question asked instead of a detail is answered and the detail asked again,
and the reply says what was sent where."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from bot import launch
from ops.processes import RASA_BIN
from tests.handoff_sinks import HttpSink, Mailbox, closed_port, handoff_env, http_sink, slack_sink, smtp_server

pytestmark = [
    pytest.mark.rasa,
    pytest.mark.skipif(not (RASA_BIN / "rasa").exists(), reason="no Rasa environment (make rasa-venv)"),
]


@pytest.fixture(scope="module")
def sinks() -> Iterator[tuple[Mailbox, HttpSink, HttpSink]]:
    with smtp_server() as mailbox, http_sink() as webhook, slack_sink() as slack:
        yield mailbox, webhook, slack


@pytest.fixture(scope="module")
def stack(
    tmp_path_factory: pytest.TempPathFactory, sinks: tuple[Mailbox, HttpSink, HttpSink]
) -> Iterator[launch.ChatStack]:
    # Slack is down in this stack: its API URL points at a port nothing listens on
    env = handoff_env(*sinks) | {"FABRIC_ADVISOR_HANDOFF_SLACK_API_URL": f"http://127.0.0.1:{closed_port()}/api"}
    with launch.chat_stack(tmp_path_factory.mktemp("handoff-chat"), env=env) as running:
        yield running


def say(stack: launch.ChatStack, sender: str, text: str) -> str:
    response = httpx.post(stack.webhook, json={"sender": sender, "message": text}, params=stack.auth, timeout=60)
    response.raise_for_status()
    return "\n\n".join(m["text"] for m in response.json() if m.get("text"))


def test_a_handoff_in_the_chat_arrives_by_mail_and_webhook_and_says_slack_was_not_reached(
    stack: launch.ChatStack, sinks: tuple[Mailbox, HttpSink, HttpSink], tmp_path: Path
) -> None:
    mailbox, webhook, slack = sinks
    sender = f"test-{uuid.uuid4().hex[:8]}"
    assert "**Recommendation:" in say(stack, sender, "We will pretrain a 70B model on 128 H100s, what network?")
    assert "network engineer" in say(stack, sender, "I want to talk to an engineer")
    assert "your name" in say(stack, sender, "yes please")
    assert "email" in say(stack, sender, "Jane Doe")
    again = say(stack, sender, "jane at acme")
    assert "doesn't look like an email address" in again and "email" in again
    assert "company" in say(stack, sender, "jane@acme.example")
    assert "discuss" in say(stack, sender, "Acme AI Lab")
    reply = say(stack, sender, "We need a quote for this design by Friday")
    assert reply.startswith("Sent to the sales engineering team by email and the webhook; reference H-"), reply
    assert "(Slack could not be reached.)" in reply
    reference = reply.split("reference ", 1)[1][:10]
    [(recipients, mail)] = [m for m in mailbox.mails if reference in m[1]["Subject"]]
    assert recipients == ["sales-engineering@example.com"]
    body = str(mail.get_payload())
    assert "jane@acme.example" in body and "quote for this design by Friday" in body and "128" in body
    [hook] = [body for *_, body in webhook.received if body["reference"] == reference]
    assert str(hook["conversation_id"]).endswith(sender) and str(hook["recommendation_id"]).startswith("r_")
    assert slack.received == []  # (the sink is up, but this stack was pointed elsewhere)


def test_cancel_leaves_the_handoff_form_at_any_question_and_nothing_is_sent(
    stack: launch.ChatStack, sinks: tuple[Mailbox, HttpSink, HttpSink]
) -> None:
    mailbox, webhook, _ = sinks
    sender = f"test-{uuid.uuid4().hex[:8]}"
    cancelled = "OK, cancelled: no request was recorded and nothing was sent to an engineer."
    assert "network engineer" in say(stack, sender, "I want to talk to an engineer")
    assert "your name" in say(stack, sender, "yes please")
    assert say(stack, sender, "never mind").startswith(cancelled)
    # the conversation goes on: the next message is not taken for a name
    assert "Source:" in say(stack, sender, "what is PFC?")

    # a second try, cancelled at the last question with the Cancel quick reply's payload
    assert "network engineer" in say(stack, sender, "can I talk to a person?")
    assert "your name" in say(stack, sender, "yes please")
    assert "email" in say(stack, sender, "Jane Doe")
    assert "company" in say(stack, sender, "jane@acme.example")
    assert "discuss" in say(stack, sender, "Acme AI Lab")
    assert say(stack, sender, "cancel").startswith(cancelled)

    # ... and a third goes through, asking only for the message (the details were kept)
    assert "network engineer" in say(stack, sender, "talk to an engineer")
    assert "discuss" in say(stack, sender, "yes please")
    assert say(stack, sender, "nothing").startswith("Sent to the sales engineering team")
    sent = [hook for *_, hook in webhook.received if str(hook["conversation_id"]).endswith(sender)]
    assert len(sent) == 1 and sent[0]["message"] == "" and sent[0]["name"] == "Jane Doe"
    assert len([m for _, m in mailbox.mails if sent[0]["reference"] in m["Subject"]]) == 1


def test_a_question_instead_of_the_company_is_answered_and_the_company_asked_again(
    stack: launch.ChatStack, sinks: tuple[Mailbox, HttpSink, HttpSink]
) -> None:
    _, webhook, _ = sinks
    sender = f"test-{uuid.uuid4().hex[:8]}"
    assert "**Recommendation:" in say(stack, sender, "We will pretrain a 70B model on 128 H100s, what network?")
    assert "network engineer" in say(stack, sender, "I want to talk to an engineer")
    assert "your name" in say(stack, sender, "yes please")
    assert "email" in say(stack, sender, "Jane Doe")
    assert "company" in say(stack, sender, "jane@acme.example")
    aside = say(stack, sender, "wait, which switch is that?")
    assert "QM9700" in aside and aside.endswith("Back to the handoff: which company are you with?"), aside
    assert "discuss" in say(stack, sender, "Acme AI Lab")
    assert say(stack, sender, "nothing").startswith("Sent to the sales engineering team")
    [hook] = [hook for *_, hook in webhook.received if str(hook["conversation_id"]).endswith(sender)]
    assert hook["company"] == "Acme AI Lab" and hook["name"] == "Jane Doe"
