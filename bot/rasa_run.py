"""`rasa run ...` with Rasa's `--auth-token` taken from FABRIC_ADVISOR_RASA_TOKEN.

Rasa takes its token only on the command line, where any local account can read it
(/proc/PID/cmdline, `ps`). This wrapper, run by Rasa's own Python in bot/, adds
`--auth-token` inside the process instead, and refuses to start without a token
(exit 2), so Rasa's HTTP API (conversations, model, tracker events) is never open.
Without a `--cors` argument, CORS admits the origin of FABRIC_ADVISOR_PUBLIC_URL (the
widget's page) and nothing else (deploy/Dockerfile.rasa relies on this). `rasa run` gets
bot/rasa_patches.py's check of the action server's answers: the same check, 3 times faster.

    .venv-rasa/bin/python rasa_run.py run --enable-api -p 5005 ...
"""

import os
import sys
from urllib.parse import urlsplit

from rasa.__main__ import main as rasa_main  # Rasa's environment only

TOKEN_ENV = "FABRIC_ADVISOR_RASA_TOKEN"
PUBLIC_URL_ENV = "FABRIC_ADVISOR_PUBLIC_URL"


def rasa_arguments(given: list[str], token: str, public_url: str) -> list[str]:
    """The arguments for `rasa`: the given ones, the token, and CORS for the widget's
    origin unless `--cors` was given."""
    # one argument with '=': a token that begins with '-' is still the option's value
    arguments = [*given, f"--auth-token={token}"]
    public = urlsplit(public_url.strip())
    if "--cors" not in arguments and public.scheme in ("http", "https") and public.netloc:
        arguments += ["--cors", f"{public.scheme}://{public.netloc}"]
    return arguments


def main() -> int:
    token = os.environ.get(TOKEN_ENV, "").strip()
    if not token:
        print(f"{TOKEN_ENV} is not set: Rasa's HTTP API would be open to anyone who reaches it.", file=sys.stderr)
        return 2
    if any(argument.split("=", 1)[0] in ("--auth-token", "-t") for argument in sys.argv):
        print(f"pass the token in {TOKEN_ENV}, not on the command line", file=sys.stderr)
        return 2
    sys.argv = ["rasa", *rasa_arguments(sys.argv[1:], token, os.environ.get(PUBLIC_URL_ENV, ""))]
    if sys.argv[1:2] == ["run"]:
        from rasa_patches import check_action_answers_against_a_checked_schema

        check_action_answers_against_a_checked_schema()  # three quarters of a chat turn in Rasa
    rasa_main()
    return 0


if __name__ == "__main__":
    sys.exit(main())
