"""Local stand-ins for the handoff's destinations, each a real server on 127.0.0.1: an SMTP
server (aiosmtpd) that keeps the mails it accepts, an HTTP server that keeps the JSON
POSTed to it (the webhook), and one that answers like Slack's chat.postMessage."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email import message_from_bytes
from email.message import Message
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session

from ops.processes import free_port


def closed_port() -> int:
    """A port nothing listens on (a destination that is down)."""
    return free_port()


@dataclass
class Mailbox:
    port: int
    mails: list[tuple[list[str], Message]] = field(default_factory=list)

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        content = envelope.content if isinstance(envelope.content, bytes) else str(envelope.content).encode()
        self.mails.append(([str(to) for to in envelope.rcpt_tos], message_from_bytes(content)))
        return "250 OK"


@contextmanager
def smtp_server() -> Iterator[Mailbox]:
    box = Mailbox(port=free_port())
    controller = Controller(box, hostname="127.0.0.1", port=box.port)
    controller.start()
    try:
        yield box
    finally:
        controller.stop()


@dataclass
class HttpSink:
    port: int
    received: list[tuple[str, dict[str, str], Any]] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@contextmanager
def http_sink(answer: dict[str, Any] | None = None, status: int = 200) -> Iterator[HttpSink]:
    """An HTTP server keeping each POST's path, headers and JSON body; it answers status
    with `answer` as JSON (Slack's chat.postMessage answers {"ok": true, ...})."""
    sink = HttpSink(port=free_port())

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            sink.received.append((self.path, dict(self.headers.items()), json.loads(body or b"null")))
            data = json.dumps(answer if answer is not None else {"received": True}).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", sink.port), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield sink
    finally:
        server.shutdown()
        server.server_close()


def slack_sink() -> Any:
    """An HTTP server answering like chat.postMessage does when the post is accepted."""
    return http_sink(answer={"ok": True, "channel": "C0HANDOFF", "ts": "1733389200.000100"})


def handoff_env(mailbox: Mailbox, webhook: HttpSink, slack: HttpSink) -> dict[str, str]:
    """The FABRIC_ADVISOR_HANDOFF_* settings that send to the three sinks."""
    return {
        "FABRIC_ADVISOR_HANDOFF_SMTP_HOST": "127.0.0.1",
        "FABRIC_ADVISOR_HANDOFF_SMTP_PORT": str(mailbox.port),
        "FABRIC_ADVISOR_HANDOFF_EMAIL_FROM": "advisor@example.com",
        "FABRIC_ADVISOR_HANDOFF_EMAIL_TO": "sales-engineering@example.com",
        "FABRIC_ADVISOR_HANDOFF_WEBHOOK_URL": f"{webhook.url}/hooks/handoff",
        "FABRIC_ADVISOR_HANDOFF_SLACK_TOKEN": "xoxb-test-token",
        "FABRIC_ADVISOR_HANDOFF_SLACK_CHANNEL": "#sales-engineering",
        "FABRIC_ADVISOR_HANDOFF_SLACK_API_URL": f"{slack.url}/api",
        "FABRIC_ADVISOR_HANDOFF_TIMEOUT": "3",
    }
