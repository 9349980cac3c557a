"""The action server (rasa-sdk, serving bot.actions) in one process.

`python -m rasa_sdk` runs Sanic's process manager: a manager process, a worker process
that does the work, and multiprocessing's helpers. The worker is a grandchild of
whoever started the server, so it outlives a SIGKILL of the supervisor (the
parent-death signal reaches children only) and holds the port. One process serves a
chat turn's few action calls as fast, and stops with its parent.

    python -m bot.action_server --port 5055     # host from SANIC_HOST, else 127.0.0.1
"""

from __future__ import annotations

import argparse
import logging
import os
import sys

from rasa_sdk.endpoint import create_app
from rasa_sdk.executor import ActionExecutor

ACTIONS_PACKAGE = "bot.actions"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot.action_server", description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=5055)
    parser.add_argument("--host", default=os.environ.get("SANIC_HOST", "127.0.0.1"))
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    executor = ActionExecutor()
    executor.register_package(ACTIONS_PACKAGE)
    app = create_app(executor, cors_origins="*")
    app.run(host=args.host, port=args.port, single_process=True, access_log=False, motd=False)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
