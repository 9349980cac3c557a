"""What a Slack user types cannot become a disguised link in the bot's replies: the Slack
connector (bot/channels/slack.py, run here in Rasa's own environment) defuses markdown
links in the text it hands the bot, so the advisor's markdown, turned into Slack mrkdwn
(advisor/render/slack.py) for the reply, shows the user's text as typed. Slack's own
`<url|label>` markup becomes its label, and reading a long adversarial message stays
linear (Rasa's own pattern takes tens of seconds on 100k characters of `<http://`)."""

from __future__ import annotations

import json
import subprocess

import pytest

from advisor.render.slack import markdown_to_mrkdwn
from bot import launch
from ops.processes import RASA_BIN

pytestmark = [
    pytest.mark.rasa,
    pytest.mark.skipif(not (RASA_BIN / "rasa").exists(), reason="no Rasa environment (make rasa-venv)"),
]

READ = """
import json, sys, time
from channels.slack import SlackConnector
out = []
for text in json.load(sys.stdin):
    started = time.perf_counter()
    read = SlackConnector._sanitize_user_message(text, ["UBOT"])
    out.append({"text": read, "seconds": time.perf_counter() - started})
print(json.dumps(out))
"""

MESSAGES = [
    "<@UBOT> we use [Open your design](https://evil.example/login) GPUs",
    "see <https://docs.example/page|the docs> and <mailto:a@b.example|mail us>",
    "a &lt;b&gt; &amp; c | d",
    "<http://" * 12_500,  # 100k characters: quadratic for Rasa's own pattern
    "[x](" * 25_000,
]


def read_in_rasa(messages: list[str]) -> list[dict]:
    result = subprocess.run(
        [str(RASA_BIN / "python"), "-c", READ],
        cwd=launch.BOT,
        env={**launch.RASA_ENV, "PATH": "/usr/bin:/bin"},
        input=json.dumps(messages),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_slack_text_reaches_the_bot_without_live_links_and_in_linear_time() -> None:
    phishing, slack_links, escaped, long_links, long_markdown = read_in_rasa(MESSAGES)
    assert phishing["text"] == "we use [Open your design] (https://evil.example/login) GPUs"
    reply = markdown_to_mrkdwn(f"**Design** for {phishing['text']}")
    assert "|Open your design>" not in reply and "<https://evil.example" not in reply
    assert "Open your design" in reply
    assert slack_links["text"] == "see the docs and mail us"
    assert escaped["text"] == "a &lt;b&gt; &amp; c | d"  # Slack's escapes stay; replies escape again
    assert "<" not in markdown_to_mrkdwn(escaped["text"]).replace("&lt;", "")
    for long in (long_links, long_markdown):
        assert long["seconds"] < 5.0, long["seconds"]  # a linear pass takes milliseconds
    assert "](" not in long_markdown["text"]
