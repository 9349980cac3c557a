"""REST API under concurrent load: requests/s and p50/p99 latency of GET /healthz (the
trivial baseline), POST /v1/recommendations and POST /v1/ask, measured in one run
against one uvicorn worker. The old target of a ratio to /healthz is retired (it measured
the load generator as much as the work): each endpoint's work per request is printed
beside the floor app's instead.

The POST bodies are thousands of distinct profiles and questions, sent in turn, so the
figures are those of the work itself; one more line per endpoint repeats a single body,
which shows what the cache of answers is worth to a question asked again.

A second, bare server measured in the same run (bench/floor_app.py: the same FastAPI
validating the same body and returning a stored recommendation's bytes, no work) gives
the framework's own floor; each endpoint's time per request beyond that floor is the work.

One more figure is a single person's wait rather than a throughput: `/v1/ask` with a
knowledge question, one at a time on one connection (no queue in front of it), each
question asked once (the blind sets' knowledge questions, so no remembered answer makes
the figure): its p50, against the target of issue 24 (<= 5 ms).

The load comes from a separate process so it does not share the server's interpreter:
`wrk` when installed (apt-get install wrk), else a small asyncio load generator started
as `python -m bench.api --load ...`. Both keep 16 keep-alive connections busy for a
fixed time; the fallback also stops after a fixed count. On a 2-core machine the
generator competes with the server for the cores, so the figures are a floor (wrk
spends the least CPU per request of the two).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from bench.floor_app import RECOMMENDATION_BYTES
from ops.processes import free_port, running  # the same start/stop as the e2e tests

REPO = Path(__file__).resolve().parents[1]
PYTHON = sys.executable

CONNECTIONS = 16
SECONDS = 5.0
MAX_REQUESTS = 50_000  # per scenario, for the fallback generator

#: a knowledge question's /v1/ask p50, one request at a time (issue 24)
TARGET_KNOWLEDGE_P50_MS = 5.0
KNOWLEDGE_SETS = sorted((REPO / "tests" / "data").glob("*_knowledge.jsonl"))

DISTINCT = 4096  # distinct bodies per POST scenario, so a cache of answers cannot make the figure
GPU_MODELS = ["H100", "H200", "B200", "A100", "L40S", "MI300X"]
TERMS = [
    "PFC",
    "ECN",
    "DCQCN",
    "RoCEv2",
    "a rail-optimized topology",
    "a fat-tree",
    "SHARP",
    "GPUDirect RDMA",
    "NVLink",
    "InfiniBand NDR",
    "Dragonfly+",
    "oversubscription",
]


def profiles(count: int, seed: int = 7) -> list[dict[str, Any]]:
    """Distinct, valid workload profiles (GPU counts in whole servers of 8)."""
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    while len(out) < count:
        body = {
            "workload": rng.choice(["training", "inference", "mixed"]),
            "gpu_count": 8 * rng.randint(1, 4096),
            "gpu_model": rng.choice(GPU_MODELS),
            "model_params_b": rng.choice([7, 13, 34, 70, 180, 405, 1800]),
        }
        if rng.random() < 0.3:
            body["cost_sensitive"] = True
        key = json.dumps(body, sort_keys=True)
        if key not in seen:
            seen.add(key)
            out.append(body)
    return out


def questions(count: int, seed: int = 11) -> list[dict[str, Any]]:
    """A mix of the three kinds of question: a workload, a knowledge question, too little to size."""
    rng = random.Random(seed)
    out = []
    for i in range(count):
        n, model = 8 * rng.randint(1, 4096), rng.choice(GPU_MODELS)
        kind = i % 3
        if kind == 0:
            text = (
                f"We are pretraining a {rng.choice([7, 13, 70, 405])}B model on {n} {model}s. What network do we need?"
            )
        elif kind == 1:
            text = f"What is {rng.choice(TERMS)}?"
        else:
            text = f"We need a network for a cluster of {n} {model} GPUs."
        out.append({"question": text})
    return out


@dataclass
class Scenario:
    name: str
    method: str
    path: str
    bodies: list[dict[str, Any]]


HEALTHZ = Scenario("GET /healthz", "GET", "/healthz", [])
DISTINCT_PROFILES = Scenario(
    "POST /v1/recommendations (distinct profiles)", "POST", "/v1/recommendations", profiles(DISTINCT)
)
SCENARIOS = [
    HEALTHZ,
    DISTINCT_PROFILES,
    Scenario("POST /v1/recommendations (one profile repeated)", "POST", "/v1/recommendations", profiles(1)),
    Scenario("POST /v1/ask (recommendation/answer/clarification mix)", "POST", "/v1/ask", questions(DISTINCT)),
    Scenario("POST /v1/ask (one question repeated)", "POST", "/v1/ask", questions(1)),
]
FLOOR_SCENARIOS = [HEALTHZ, DISTINCT_PROFILES]


@dataclass
class Figures:
    requests: int
    errors: int
    seconds: float
    rps: float
    p50_ms: float
    p99_ms: float
    tool: str


def knowledge_questions() -> list[str]:
    """Every distinct knowledge question of the blind and development sets."""
    seen: dict[str, None] = {}
    for path in KNOWLEDGE_SETS:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                seen.setdefault(json.loads(line)["question"], None)
    return list(seen)


def knowledge_latency(url: str, asked: list[str]) -> list[float]:
    """Each question's /v1/ask time in ms, sent one after the other on one connection."""
    times = []
    with httpx.Client(base_url=url, timeout=60) as client:
        for question in asked:
            started = time.perf_counter()
            response = client.post("/v1/ask", json={"question": question})
            times.append((time.perf_counter() - started) * 1000)
            response.raise_for_status()
    return times


def _knowledge_line(times: list[float]) -> str:
    if not times:
        return "POST /v1/ask, a knowledge question at a time: no questions"
    p50 = statistics.median(times)
    verdict = "meets" if p50 <= TARGET_KNOWLEDGE_P50_MS else "MISSES"
    return (
        f"POST /v1/ask, a knowledge question at a time ({len(times)} distinct questions, one connection): "
        f"p50 {p50:.1f} ms, p95 {statistics.quantiles(times, n=20)[18]:.1f} ms "
        f"({verdict} target p50 <= {TARGET_KNOWLEDGE_P50_MS:g} ms)"
    )


def run() -> list[str]:
    """Load each scenario in turn on the API, then on the bare floor app, and describe
    the figures; then a knowledge question's own time."""
    results, times = _serve("api.app:app", SCENARIOS, knowledge=knowledge_questions())
    floor, _ = _serve("bench.floor_app:app", FLOOR_SCENARIOS)

    baseline = results[0][1]
    lines = []
    for scenario, figures in results:
        line = _describe(scenario, figures)
        if figures is baseline:
            line += f" (baseline; {CONNECTIONS} connections, {figures.tool})"
        lines.append(line)
    return [*lines, *_floor_lines(floor, baseline, results), _knowledge_line(times)]


def _serve(
    app: str, scenarios: list[Scenario], knowledge: list[str] | None = None
) -> tuple[list[tuple[Scenario, Figures]], list[float]]:
    """One uvicorn worker serving app on a free port, loaded with each scenario in turn,
    then asked `knowledge` one question at a time (their times in ms)."""
    with tempfile.TemporaryDirectory(prefix="bench-api-") as tmp:
        env = {
            "FABRIC_ADVISOR_DB": str(Path(tmp) / "advisor.db"),
            "FABRIC_ADVISOR_API_KEY": "",
            "FABRIC_ADVISOR_RATE_LIMIT": "0",  # one client at full speed: the throughput, not the limit
        }
        port = free_port()
        command = [
            PYTHON,
            "-m",
            "uvicorn",
            app,
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--workers",
            "1",
            "--no-access-log",
            "--log-level",
            "warning",
        ]
        with running(command, port=port, health_path="/healthz", env=env) as server:
            _warm(server.url, scenarios)
            figures = [(s, measure(server.url, s)) for s in scenarios]
            return figures, knowledge_latency(server.url, knowledge or [])


def _describe(scenario: Scenario, figures: Figures) -> str:
    line = (
        f"{scenario.name}: {figures.rps:,.0f} req/s, p50 {figures.p50_ms:.2f} ms, "
        f"p99 {figures.p99_ms:.2f} ms, {figures.requests:,} requests"
    )
    return line + (f", {figures.errors:,} ERRORS" if figures.errors else "")


def _floor_lines(
    floor: list[tuple[Scenario, Figures]], baseline: Figures, results: list[tuple[Scenario, Figures]]
) -> list[str]:
    """The bare app's figures, and the time each real endpoint spends per request beyond
    the floor's own POST: the work, with the framework and the load generator taken out."""
    (_, floor_get), (scenario, floor_post) = floor
    lines = [
        f"Floor, no work (bench/floor_app.py: the same FastAPI validates the profile and returns a stored "
        f"recommendation's {len(RECOMMENDATION_BYTES):,} bytes): GET /healthz {floor_get.rps:,.0f} req/s; "
        f"{_describe(scenario, floor_post)}; {floor_post.rps / floor_get.rps:.2f} x its own GET"
    ]
    if not (baseline.rps and floor_post.rps):
        return lines
    per_request_us = 1e6 / floor_post.rps
    lines.append(f"Work per request (time per request beyond the floor's POST, {per_request_us:,.0f} us):")
    lines += [f"  {s.name}: {1e6 / f.rps - per_request_us:,.0f} us" for s, f in results[1:] if f.rps]
    return lines


def _warm(url: str, scenarios: list[Scenario]) -> None:
    """One of each request first: imports, caches and the database are set up outside the timing."""
    with httpx.Client(base_url=url, timeout=60) as client:
        for scenario in scenarios[1:]:
            for body in scenario.bodies[:6]:
                response = client.request(scenario.method, scenario.path, json=body)
                if response.status_code >= 400:
                    raise RuntimeError(f"{scenario.name} answered {response.status_code}: {response.text[:300]}")


def measure(url: str, scenario: Scenario) -> Figures:
    if shutil.which("wrk"):
        return _wrk(url, scenario)
    return _python_process(url, scenario)


# -------------------------------------------------------------------------------- wrk

_LUA = """
local bodies = {%s}
local i = 0
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
request = function()
  i = i %% #bodies + 1
  return wrk.format(nil, nil, nil, bodies[i])
end
"""


def _wrk(url: str, scenario: Scenario) -> Figures:
    with tempfile.TemporaryDirectory(prefix="bench-wrk-") as tmp:
        command = ["wrk", "-t", "1", "-c", str(CONNECTIONS), "-d", f"{SECONDS:g}s", "--timeout", "10s", "--latency"]
        if scenario.bodies:
            script = Path(tmp) / "bodies.lua"
            quoted = ", ".join(_lua_string(json.dumps(b)) for b in scenario.bodies)
            script.write_text(_LUA % quoted)
            command += ["-s", str(script)]
        out = subprocess.run(
            [*command, url + scenario.path], capture_output=True, text=True, timeout=SECONDS + 60, check=True
        ).stdout
    return _parse_wrk(out)


def _lua_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _parse_wrk(out: str) -> Figures:
    def latency(pct: str) -> float:
        match = re.search(rf"^\s*{pct}%\s+([\d.]+)(us|ms|s)\s*$", out, re.M)
        if not match:
            raise RuntimeError(f"no {pct}% latency in wrk output:\n{out}")
        value, unit = float(match[1]), match[2]
        return value / 1000 if unit == "us" else value * 1000 if unit == "s" else value

    requests = re.search(r"(\d+) requests in ([\d.]+)(m?s)", out)
    rps = re.search(r"Requests/sec:\s+([\d.]+)", out)
    if not requests or not rps:
        raise RuntimeError(f"unexpected wrk output:\n{out}")
    seconds = float(requests[2]) / (1000 if requests[3] == "ms" else 1)
    non_2xx = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
    sockets = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    errors = (int(non_2xx[1]) if non_2xx else 0) + (sum(int(n) for n in sockets.groups()) if sockets else 0)
    return Figures(int(requests[1]), errors, seconds, float(rps[1]), latency("50"), latency("99"), "wrk")


# ---------------------------------------------------------------- asyncio fallback


def _python_process(url: str, scenario: Scenario) -> Figures:
    """The fallback generator in its own process (python -m bench.api --load ...)."""
    with tempfile.NamedTemporaryFile("w", prefix="bench-bodies-", suffix=".json") as bodies:
        json.dump(scenario.bodies, bodies)
        bodies.flush()
        command = [
            PYTHON,
            "-m",
            "bench.api",
            "--load",
            url + scenario.path,
            "--method",
            scenario.method,
            "--bodies",
            bodies.name,
        ]
        out = subprocess.run(
            command, capture_output=True, text=True, timeout=SECONDS + 120, check=True, cwd=REPO
        ).stdout
    return Figures(**json.loads(out.strip().splitlines()[-1]))


async def _load(url: str, method: str, bodies: list[dict[str, Any]]) -> Figures:
    """Keep CONNECTIONS keep-alive HTTP/1.1 connections busy until the time or count is up.

    Plain asyncio streams rather than httpx.AsyncClient: httpx spends about ten times
    the CPU per request, which on two cores would measure the client, not the server.
    uvicorn answers our endpoints with a Content-Length, which is all this reads.
    """
    target = httpx.URL(url)
    host, port, path = target.host, target.port or 80, target.raw_path.decode()
    requests = [_request_bytes(method, host, port, path, body) for body in bodies] or [
        _request_bytes(method, host, port, path, None)
    ]
    latencies: list[float] = []
    errors = 0
    started = time.perf_counter()
    deadline = started + SECONDS

    async def worker(offset: int) -> None:
        nonlocal errors
        reader, writer = await asyncio.open_connection(host, port)
        i = offset
        try:
            while time.perf_counter() < deadline and len(latencies) + errors < MAX_REQUESTS:
                t0 = time.perf_counter()
                writer.write(requests[i % len(requests)])
                i += 1
                status = await _read_response(reader)
                if status < 400:
                    latencies.append((time.perf_counter() - t0) * 1000)
                else:
                    errors += 1
        finally:
            writer.close()

    await asyncio.gather(*(worker(n) for n in range(CONNECTIONS)))
    seconds = time.perf_counter() - started
    cuts = statistics.quantiles(latencies, n=100) if len(latencies) > 1 else [0.0] * 99
    return Figures(
        len(latencies) + errors, errors, seconds, len(latencies) / seconds, cuts[49], cuts[98], "asyncio load generator"
    )


def _request_bytes(method: str, host: str, port: int, path: str, body: dict[str, Any] | None) -> bytes:
    head = f"{method} {path} HTTP/1.1\r\nHost: {host}:{port}\r\n"
    if body is None:
        return (head + "\r\n").encode()
    payload = json.dumps(body).encode()
    head += f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\n\r\n"
    return head.encode() + payload


async def _read_response(reader: asyncio.StreamReader) -> int:
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ", 2)[1])
    length = next(
        (int(line.split(":", 1)[1]) for line in lines[1:] if line.lower().startswith("content-length:")), None
    )
    if length is None:
        raise RuntimeError(f"response without Content-Length: {lines[0]}")
    await reader.readexactly(length)
    return status


def _main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description="Load generator for bench.api (runs in its own process).")
    parser.add_argument("--load", required=True, metavar="URL")
    parser.add_argument("--method", default="GET")
    parser.add_argument("--bodies", help="file with a JSON list of request bodies, sent in turn")
    args = parser.parse_args(argv)
    bodies = json.loads(Path(args.bodies).read_text()) if args.bodies else []
    figures = asyncio.run(_load(args.load, args.method, bodies))
    print(json.dumps(figures.__dict__))
    return 0


if __name__ == "__main__":
    if "--load" in sys.argv:
        sys.exit(_main(sys.argv[1:]))
    for line in run():
        print(line)
