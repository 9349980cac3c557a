"""Run a set of servers as one service: start them in order (each waits for its
health check), keep each pid in var/run/NAME.pid, start one that dies again, and stop
them all on Ctrl-C, on SIGTERM, or on a crash loop.

A replica that dies (a crash, the OOM killer, `kill -9`) is started again after a
back-off (0.25 s, then doubling up to 30 s while it keeps dying) without waiting for it:
meanwhile HAProxy's health checks route around it, and the rest run on. Only a crash
loop, one service dying `RestartPolicy.max_deaths` times within `window_s` seconds
(FABRIC_ADVISOR_CRASH_LOOP_RESTARTS / _SECONDS), stops the whole stack, with one line
saying which: restarting something that cannot run only hides the fault.

`make run` (ops.run) and `make run-cluster` (ops.cluster) are lists of `Service`s
handed to `Supervisor`; the fault tests drive a `Supervisor` directly to stop and start
one part (PostgreSQL, Redis, a Rasa replica) while the others run, and `watching()`
runs the same restart loop in a thread.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

from core.settings import settings
from ops.processes import PortTaken, ServerFailed, port_taken, spawn, stop, stop_all, wait_for

TEND_INTERVAL_S = 0.2  # how often the restart loop looks for a dead process (a poll() each)


@dataclass
class Service:
    """One server process: how to start it, where it listens, how to tell it is ready."""

    name: str
    command: list[str]
    cwd: Path
    port: int
    health: str | Callable[[], bool]  # a URL answering < 500, or a check
    timeout: float = 60.0
    env: dict[str, str] = field(default_factory=dict)
    host: str = "127.0.0.1"
    user: str | None = None  # run as this account when we are root (PostgreSQL refuses root)
    prepare: Callable[[], None] | None = None  # run once before the first start (initdb)
    group: str | None = None  # adjacent services of one group start together, then are waited for
    stop_signal: int = signal.SIGTERM  # PostgreSQL: SIGINT, its fast shutdown (SIGTERM waits for clients)


@dataclass(frozen=True)
class RestartPolicy:
    """When a dead service is started again, and when the stack gives up instead."""

    max_deaths: int = 5  # this many deaths of one service within window_s is a crash loop
    window_s: float = 300.0
    # back-off: first_delay_s, doubling per recent death, at most max_delay_s. The first
    # restart is all but at once: a Rasa replica takes 30-60 s to come back on a busy
    # machine (TensorFlow's import, the model load; bench/cluster.py), a second of ours
    # adds to it, and a crash loop is caught by max_deaths whatever the first delay
    first_delay_s: float = 0.25
    max_delay_s: float = 30.0

    @classmethod
    def from_settings(cls) -> RestartPolicy:
        return cls(max_deaths=settings.crash_loop_restarts, window_s=settings.crash_loop_seconds)

    def delay(self, recent_deaths: int) -> float:
        return min(self.max_delay_s, self.first_delay_s * 2.0 ** max(0, recent_deaths - 1))


class CrashLoop(Exception):
    """A service died too often within the window: the stack stops."""


class Supervisor:
    """Starts, watches and stops services, with logs in var_dir and pid files in var_dir/run."""

    def __init__(self, services: Sequence[Service], var_dir: Path, policy: RestartPolicy | None = None) -> None:
        self.services = {service.name: service for service in services}
        self.var_dir = var_dir
        self.policy = policy or RestartPolicy.from_settings()
        self.processes: dict[str, subprocess.Popen[bytes]] = {}
        self.deaths: dict[str, deque[float]] = {}
        self.restarts: dict[str, int] = {}  # how often each service was started again
        self._due: dict[str, float] = {}  # service -> when to start it again
        self._lock = threading.RLock()
        self._prepared: set[str] = set()

    def log_path(self, name: str) -> Path:
        return self.var_dir / f"{name}.log"

    def pid_path(self, name: str) -> Path:
        return self.var_dir / "run" / f"{name}.pid"

    def check_ports(self) -> None:
        """Fail at once, naming the port, when any service's port is someone else's."""
        for service in self.services.values():
            if service.name not in self.processes and port_taken(service.port, service.host):
                raise PortTaken(service.name, service.port, service.host)

    def start(self, name: str) -> subprocess.Popen[bytes]:
        """Start one service and wait for its health check (ours only)."""
        process = self.spawn(name)
        self.wait(name)
        return process

    def spawn(self, name: str) -> subprocess.Popen[bytes]:
        """Start one service without waiting for it."""
        service = self.services[name]
        if port_taken(service.port, service.host):
            raise PortTaken(service.name, service.port, service.host)
        if service.prepare and name not in self._prepared:
            service.prepare()
            self._prepared.add(name)
        (self.var_dir / "run").mkdir(parents=True, exist_ok=True)
        with self._lock:
            process = spawn(
                service.command, cwd=service.cwd, env=service.env, log=self.log_path(name), user=service.user
            )
            self.processes[name] = process
            self._due.pop(name, None)
            self.pid_path(name).write_text(f"{process.pid}\n")
        return process

    def wait(self, name: str) -> None:
        """Wait for a started service's health check (ours only)."""
        service = self.services[name]
        wait_for(service.health, service.timeout, self.processes[name], self.log_path(name), port=service.port)

    def stages(self) -> list[list[str]]:
        """The services in start order, adjacent ones of a group together."""
        stages: list[list[str]] = []
        for service in self.services.values():
            previous = self.services[stages[-1][-1]] if stages else None
            if previous is not None and service.group is not None and service.group == previous.group:
                stages[-1].append(service.name)
            else:
                stages.append([service.name])
        return stages

    def stop(self, name: str) -> None:
        with self._lock:
            process = self.processes.pop(name, None)
            self._due.pop(name, None)
        if process is not None:
            stop(process, sig=self.services[name].stop_signal)
        self.pid_path(name).unlink(missing_ok=True)

    def kill(self, name: str) -> None:
        """SIGKILL one service, as a crash would, and leave it down (not started again)."""
        with self._lock:
            process = self.processes.pop(name)
        process.kill()
        process.wait(timeout=10)
        self.pid_path(name).unlink(missing_ok=True)

    def stop_all(self) -> None:
        """Stop every running service at once (SIGTERM, SIGKILL after the grace period)."""
        with self._lock:
            processes = list(self.processes.values())
            names = list(self.processes)
            self.processes.clear()
            self._due.clear()
        stop_all(processes, signals=[self.services[name].stop_signal for name in names])
        for name in names:
            self.pid_path(name).unlink(missing_ok=True)

    def dead(self) -> list[tuple[str, int]]:
        with self._lock:
            return [(name, code) for name, process in self.processes.items() if (code := process.poll()) is not None]

    def tend(self, say: Callable[[str], None] = lambda _: None) -> None:
        """One round of the restart loop: note the services that died (a crash loop raises
        CrashLoop), schedule each to start again after its back-off, and start those due."""
        now = time.monotonic()
        with self._lock:
            for name, code in self.dead():
                process = self.processes.pop(name)
                with suppress(ProcessLookupError, PermissionError):
                    os.killpg(process.pid, signal.SIGKILL)  # what it left behind, holding its port
                self.pid_path(name).unlink(missing_ok=True)
                deaths = self.deaths.setdefault(name, deque())
                deaths.append(now)
                while deaths and now - deaths[0] > self.policy.window_s:
                    deaths.popleft()
                if len(deaths) >= self.policy.max_deaths:
                    raise CrashLoop(
                        f"{name} died {len(deaths)} times within {self.policy.window_s:.0f} s (last exit {code})"
                    )
                delay = self.policy.delay(len(deaths))
                self._due[name] = now + delay
                say(f"{name} stopped (exit {code}); starting it again in {delay:.0f} s")
            for name, due in list(self._due.items()):
                if due > now or name in self.processes:
                    continue
                service = self.services[name]
                if port_taken(service.port, service.host):
                    self._due[name] = now + 1.0  # the old process's port is not free yet
                    continue
                self.spawn(name)
                self.restarts[name] = self.restarts.get(name, 0) + 1

    @contextmanager
    def watching(self, interval: float = TEND_INTERVAL_S) -> Iterator[list[BaseException]]:
        """The restart loop in a background thread while the block runs (for tests and
        benchmarks that drive a Supervisor themselves); a crash loop ends the thread and
        is left in the yielded list."""
        failures: list[BaseException] = []
        done = threading.Event()

        def loop() -> None:
            while not done.wait(interval):
                try:
                    self.tend()
                except Exception as exc:  # CrashLoop, or a restart that failed to spawn
                    failures.append(exc)
                    return

        thread = threading.Thread(target=loop, name="supervisor-watch", daemon=True)
        thread.start()
        try:
            yield failures
        finally:
            done.set()
            thread.join(timeout=10)

    @contextmanager
    def running(self, announce: Callable[[str], None] = lambda _: None) -> Iterator[Supervisor]:
        """Every service started in order, stopped when the block ends (also on error)."""
        try:
            self.check_ports()
            for stage in self.stages():
                for name in stage:
                    announce(f"starting {name} ...")
                    self.spawn(name)
                for name in stage:
                    self.wait(name)
                    announce(f"  {name} is up (port {self.services[name].port})")
            yield self
        finally:
            self.stop_all()


class Stop(Exception):
    """Ctrl-C or SIGTERM arrived."""


def _raise_stop(_signum: int, _frame: FrameType | None) -> None:
    # the first signal stops everything; more of them must not cut the stop short
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    print("\nstopping ...", flush=True)
    raise Stop


def main(services: Sequence[Service], var_dir: Path, banner: Callable[[], str]) -> int:
    """Run services until Ctrl-C or SIGTERM (exit 0), starting one that dies again, or
    until one fails to start or keeps dying (exit 1, one line saying which)."""

    def say(line: str) -> None:
        print(line, flush=True)

    signal.signal(signal.SIGTERM, _raise_stop)
    signal.signal(signal.SIGINT, _raise_stop)
    supervisor = Supervisor(services, var_dir)
    try:
        with supervisor.running(say):
            say(banner())
            while True:
                supervisor.tend(say)
                time.sleep(TEND_INTERVAL_S)
    except CrashLoop as exc:
        print(f"crash loop: {exc}; stopping the rest", file=sys.stderr, flush=True)
        return 1
    except ServerFailed as exc:  # PortTaken included: one line naming the port
        print(f"could not start: {exc}", file=sys.stderr, flush=True)
        return 1
    except Stop:
        say("stopped")
        return 0
