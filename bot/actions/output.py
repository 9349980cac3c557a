"""Sending replies to whichever channel the user wrote from.

Every channel gets the advisor's markdown (advisor.render.markdown), except Slack, which
reads its own mrkdwn: text is converted there, and a recommendation goes as Block Kit
blocks (advisor.render.slack) with the summary as the notification text.
The web widget (socket.io) also gets the recommendation as JSON, to draw its card and
link the diagram: a `bot_uttered` event whose payload is
`{"recommendation": <Recommendation as JSON>, "diagram_url": <url>}`.
"""

from __future__ import annotations

from typing import Any

from rasa_sdk import Tracker
from rasa_sdk.executor import CollectingDispatcher

from advisor.answers import verbs
from advisor.render import markdown, slack
from advisor.render.wording import customer
from advisor.settings import settings
from bot.actions import replies
from core import links
from rules.models import Recommendation

SLACK = "slack"
WIDGET = "socketio"


def say(dispatcher: CollectingDispatcher, tracker: Tracker, text: str, **kwargs: Any) -> None:
    """Send markdown text (and e.g. buttons), as mrkdwn on Slack."""
    if tracker.get_latest_input_channel() == SLACK:
        text = slack.markdown_to_mrkdwn(text)
    dispatcher.utter_message(text=text, **kwargs)


def send_recommendation(
    dispatcher: CollectingDispatcher, tracker: Tracker, rec: Recommendation, previous: Recommendation | None = None
) -> None:
    """Send rec's summary; when it replaces a different recommendation, lead with what
    changed. Then the next steps as quick replies (advisor.answers.verbs.QUICK_REPLIES)."""
    _send_recommendation(dispatcher, tracker, rec, previous)
    say(dispatcher, tracker, replies.text("next_steps"), buttons=quick_replies())


def quick_replies() -> list[dict[str, str]]:
    """The next steps after a design as Rasa buttons: their payloads are plain words the
    advisor's understanding reads, as if typed (the chat and `/v1/ask` offer the same)."""
    return [{"title": reply.title, "payload": reply.payload} for reply in verbs.QUICK_REPLIES]


def _send_recommendation(
    dispatcher: CollectingDispatcher, tracker: Tracker, rec: Recommendation, previous: Recommendation | None
) -> None:
    url = links.signed(settings.diagram_url(rec.id))  # the widget's browser sends no API key
    changed = previous if previous is not None and previous.id != rec.id else None
    head = markdown.what_changed_markdown(changed, rec) if changed else None
    channel = tracker.get_latest_input_channel()
    if channel == SLACK:
        if head:
            say(dispatcher, tracker, head)  # the blocks carry the new summary
        summary = markdown.recommendation_markdown(rec, diagram_url=url)
        blocks = slack.recommendation_blocks(rec, diagram_url=url)
        dispatcher.utter_message(json_message={"text": slack.markdown_to_mrkdwn(summary), "blocks": blocks})
        return
    if channel == WIDGET:
        if head:
            say(dispatcher, tracker, head)  # the card carries the summary
        # Rasa's socket.io channel emits a custom message as `emit(bot_message_evt, **custom)`:
        # under "data", the widget's bot_uttered handler receives exactly this payload. The
        # card shows the cost by category and links the BOM, so the lines stay out of the
        # tracker (Rasa sends the whole tracker to the action server on every call).
        # in customer wording like every renderer: the card shows the sources as they are sent
        shown = customer(rec).model_dump(mode="json", exclude={"bill_of_materials"})
        payload = {"recommendation": shown, "diagram_url": url}
        dispatcher.utter_message(json_message={"data": payload})
        return
    if changed:
        say(dispatcher, tracker, f"{markdown.changes_markdown(changed, rec)}\n\n[Topology diagram]({url})")
    else:
        say(dispatcher, tracker, markdown.recommendation_markdown(rec, diagram_url=url))
