"""Run a set of servers as one service: start them in order (each waits for its
health check), keep each pid in var/run/NAME.pid, stop them all on Ctrl-C, on SIGTERM,
or when any one of them dies, so a half-running service never lingers.

`make run` (ops.run) and `make run-cluster` (ops.cluster) are lists of `Service`s
handed to `Supervisor`; the fault tests drive a `Supervisor` directly to stop and start
one part (PostgreSQL, Redis, a Rasa replica) while the others run.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

from ops.processes import PortTaken, ServerFailed, port_taken, spawn, stop, stop_all, wait_for


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


class Supervisor:
    """Starts, watches and stops services, with logs in var_dir and pid files in var_dir/run."""

    def __init__(self, services: Sequence[Service], var_dir: Path) -> None:
        self.services = {service.name: service for service in services}
        self.var_dir = var_dir
        self.processes: dict[str, subprocess.Popen[bytes]] = {}
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
        process = spawn(service.command, cwd=service.cwd, env=service.env, log=self.log_path(name), user=service.user)
        self.processes[name] = process
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
        process = self.processes.pop(name, None)
        if process is not None:
            stop(process, sig=self.services[name].stop_signal)
        self.pid_path(name).unlink(missing_ok=True)

    def kill(self, name: str) -> None:
        """SIGKILL one service, as a crash would."""
        process = self.processes.pop(name)
        process.kill()
        process.wait(timeout=10)
        self.pid_path(name).unlink(missing_ok=True)

    def stop_all(self) -> None:
        """Stop every running service at once (SIGTERM, SIGKILL after the grace period)."""
        processes = list(self.processes.values())
        names = list(self.processes)
        self.processes.clear()
        stop_all(processes, signals=[self.services[name].stop_signal for name in names])
        for name in names:
            self.pid_path(name).unlink(missing_ok=True)

    def dead(self) -> list[tuple[str, int]]:
        return [(name, code) for name, process in self.processes.items() if (code := process.poll()) is not None]

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
    """Run services until Ctrl-C or SIGTERM (exit 0) or until one dies or fails to
    start (exit 1, one line saying which)."""

    def say(line: str) -> None:
        print(line, flush=True)

    signal.signal(signal.SIGTERM, _raise_stop)
    signal.signal(signal.SIGINT, _raise_stop)
    supervisor = Supervisor(services, var_dir)
    try:
        with supervisor.running(say):
            say(banner())
            while not (dead := supervisor.dead()):
                time.sleep(0.5)
            name, code = dead[0]
            print(f"{name} stopped (exit {code}); stopping the rest", file=sys.stderr, flush=True)
            return 1
    except ServerFailed as exc:  # PortTaken included: one line naming the port
        print(f"could not start: {exc}", file=sys.stderr, flush=True)
        return 1
    except Stop:
        say("stopped")
        return 0
