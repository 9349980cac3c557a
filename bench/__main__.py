"""`make bench`: print the figures each part measures (one module per part).

Each bench module has `run() -> list[str]`; a part whose prerequisites are missing
prints why instead of a figure, and the others still run.
"""

from __future__ import annotations

import importlib
import sys
import time

from ops.processes import adopt_server_env

PARTS = ["engine", "physical", "cli", "extraction", "api", "exposure", "chat", "cluster"]


def main(argv: list[str]) -> int:
    adopt_server_env()  # the in-process figures (the chat's understanding) as the servers run it
    wanted = argv or PARTS
    failed = 0
    for name in wanted:
        print(f"== {name}", flush=True)
        started = time.perf_counter()
        try:
            module = importlib.import_module(f"bench.{name}")
            for line in module.run():
                print(f"  {line}", flush=True)
        except Exception as exc:  # a broken part must not hide the others' figures
            failed += 1
            print(f"  FAILED: {type(exc).__name__}: {exc}", flush=True)
        print(f"  ({time.perf_counter() - started:.1f} s)", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
