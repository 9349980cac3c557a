"""The shared parts of a replicated deployment, as Debian packages on loopback:
PostgreSQL (Rasa's tracker store, stored recommendations), Redis (Rasa's lock store,
Slack event de-duplication) and HAProxy (the balancer). `make run-cluster` and the
fault tests start them the same way, each with its data under a directory of its own.

`ensure_installed()` installs what is missing with apt-get (`apt-get update` first,
once), so a fresh machine needs nothing more than Debian's mirrors.
"""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from ops.processes import http_ok
from ops.supervisor import Service

BUFSIZE = 32768  # HAProxy's buffer: the largest request it can retry on another replica
PACKAGES = {"postgresql": "postgresql", "redis-server": "redis-server", "haproxy": "haproxy"}
POSTGRES_USER = "postgres"  # PostgreSQL refuses to run as root
DATABASE = "fabric_advisor"


def postgres_bin() -> Path | None:
    """Debian's PostgreSQL binaries (/usr/lib/postgresql/VERSION/bin), the newest."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/postgres"), key=lambda p: int(p.parts[-3]))
    return found[-1].parent if found else None


def missing_packages() -> list[str]:
    missing = []
    if postgres_bin() is None:
        missing.append(PACKAGES["postgresql"])
    missing += [
        package for command, package in PACKAGES.items() if command != "postgresql" and not shutil.which(command)
    ]
    return missing


def ensure_installed() -> None:
    """apt-get install PostgreSQL, Redis and HAProxy where missing (as root)."""
    missing = missing_packages()
    if not missing:
        return
    if os.geteuid() != 0:
        raise RuntimeError(
            f"missing Debian packages {' '.join(missing)}: run `sudo apt-get install {' '.join(missing)}`"
        )
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
    subprocess.run(["apt-get", "install", "-y", "-qq", "--no-install-recommends", *missing], check=True, env=env)


def _tcp_answers(port: int, request: bytes, expect: bytes) -> Callable[[], bool]:
    def check() -> bool:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1.0) as conn:
                if request:
                    conn.sendall(request)
                return conn.recv(64).startswith(expect)
        except OSError:
            return False

    return check


def postgres_url(port: int, password: str, host: str = "127.0.0.1", database: str = DATABASE) -> str:
    return f"postgresql://{POSTGRES_USER}:{quote(password, safe='')}@{host}:{port}/{database}"


# every connection, over TCP or the socket, proves the password (SCRAM), none is trusted
PG_HBA = """\
# Written by ops.parts.postgres: password (SCRAM) for every connection, trust for none.
local all all scram-sha-256
host all all 127.0.0.1/32 scram-sha-256
host all all ::1/128 scram-sha-256
"""


def postgres(data_dir: Path, port: int, password: str) -> Service:
    """PostgreSQL with its cluster in data_dir (initdb on first start), loopback only,
    every connection authenticated with password (SCRAM-SHA-256; none trusted, not even
    local ones: any local account could otherwise read every conversation), with the
    database `fabric_advisor`. A data directory from before passwords is converted."""
    bin_dir = postgres_bin() or Path("/usr/lib/postgresql/15/bin")
    data_dir = data_dir.resolve()
    single_user = [str(bin_dir / "postgres"), "--single", "-D", str(data_dir), "postgres"]
    initdb = [str(bin_dir / "initdb"), "-D", str(data_dir), "-U", POSTGRES_USER, "-E", "UTF8"]
    as_postgres = _as_postgres() if os.geteuid() == 0 else None

    def prepare() -> None:
        if not (data_dir / "PG_VERSION").exists():
            data_dir.mkdir(parents=True, exist_ok=True)
            _give_to_postgres(data_dir)
            pwfile = data_dir.parent / f".{data_dir.name}-initdb-password"
            descriptor = os.open(pwfile, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(descriptor, "w") as out:
                out.write(password + "\n")
            try:
                _give_to_postgres(pwfile)
                subprocess.run(
                    [*initdb, "--auth=scram-sha-256", f"--pwfile={pwfile}"],
                    check=True,
                    capture_output=True,
                    preexec_fn=as_postgres,
                )
            finally:
                pwfile.unlink(missing_ok=True)
            subprocess.run(
                single_user,
                input=f"CREATE DATABASE {DATABASE};\n".encode(),
                check=True,
                capture_output=True,
                preexec_fn=as_postgres,
            )
        # the password of this run (it may have been generated anew) and no trusted connection
        literal = password.replace("'", "''")
        subprocess.run(
            single_user,
            input=f"SET password_encryption = 'scram-sha-256';\nALTER USER {POSTGRES_USER} PASSWORD '{literal}';\n".encode(),
            check=True,
            capture_output=True,
            preexec_fn=as_postgres,
        )
        (data_dir / "pg_hba.conf").write_text(PG_HBA)
        _give_to_postgres(data_dir / "pg_hba.conf")

    def ready() -> bool:
        result = subprocess.run(
            [str(bin_dir / "pg_isready"), "-q", "-h", "127.0.0.1", "-p", str(port), "-d", DATABASE],
            check=False,
        )
        return result.returncode == 0

    return Service(
        "postgres",
        [
            str(bin_dir / "postgres"),
            "-D",
            str(data_dir),
            "-p",
            str(port),
            "-c",
            "listen_addresses=127.0.0.1",
            "-c",
            f"unix_socket_directories={data_dir}",
            "-c",
            "max_connections=100",
            "-c",
            "fsync=off" if os.environ.get("FABRIC_ADVISOR_PG_FSYNC_OFF") else "fsync=on",
        ],
        data_dir,
        port,
        ready,
        30.0,
        user=POSTGRES_USER,
        prepare=prepare,
        stop_signal=signal.SIGINT,
    )


def _as_postgres() -> Callable[[], None]:
    account = pwd.getpwnam(POSTGRES_USER)

    def setup() -> None:
        os.setgid(account.pw_gid)
        os.initgroups(account.pw_name, account.pw_gid)
        os.setuid(account.pw_uid)

    return setup


def _give_to_postgres(data_dir: Path) -> None:
    """The data directory (or a file of it) belongs to the postgres account, and it can reach it."""
    if os.geteuid() != 0:
        return
    account = pwd.getpwnam(POSTGRES_USER)
    os.chown(data_dir, account.pw_uid, account.pw_gid)
    if not data_dir.is_dir():  # a file inside a directory it reaches already
        os.chmod(data_dir, 0o600)
        return
    os.chmod(data_dir, 0o700)
    for parent in data_dir.parents:  # traverse only: x for others
        mode = parent.stat().st_mode
        if not mode & 0o001:
            os.chmod(parent, mode | 0o001)


def redis_url(port: int, password: str, host: str = "127.0.0.1", db: int = 1) -> str:
    return f"redis://:{quote(password, safe='')}@{host}:{port}/{db}"


def redis(data_dir: Path, port: int, password: str) -> Service:
    """Redis on loopback, every client authenticated with password (`requirepass`, kept
    in a 0600 config file, not on the command line where `ps` shows it), every write in
    its append-only file under data_dir before it is answered (`appendfsync always`), so
    Rasa's conversation leases (with their expiry times) and the Slack event ids seen
    survive a restart, and a crash (`kill -9`) too: without it a restart emptied the lock
    store, and a turn under way and the next turn of its conversation could run together.
    The writes are a few small ones a turn; no snapshots (`save ""`): the file is enough."""
    data_dir = data_dir.resolve()
    config = data_dir / "redis.conf"

    def prepare() -> None:
        data_dir.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(config, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w") as out:
            out.write(f'requirepass "{password}"\n')

    return Service(
        "redis",
        [
            shutil.which("redis-server") or "/usr/bin/redis-server",
            str(config),
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--dir",
            str(data_dir),
            "--save",
            "",
            "--appendonly",
            "yes",
            "--appendfsync",
            "always",
            "--daemonize",
            "no",
        ],
        data_dir,
        port,
        _tcp_answers(port, f"AUTH {password}\r\nPING\r\n".encode(), b"+OK"),
        20.0,
        prepare=prepare,
    )


@dataclass
class Frontend:
    """One balanced port: where it listens, its backends and their health path."""

    name: str
    port: int
    backends: Sequence[str]  # host:port of each replica
    health_path: str
    sticky_path: str | None = None  # socket.io: its polling requests stay on one replica
    public_paths: Sequence[str] = ()  # when set, only these path prefixes pass (403 for the rest)


def haproxy_config(frontends: Sequence[Frontend], host: str = "127.0.0.1") -> str:
    """HAProxy's configuration: round robin over healthy replicas; a request that
    cannot reach one is sent to another (redispatch), so a dead replica costs no turn."""
    lines = [
        "# Written by ops.parts.haproxy_config (deploy/haproxy.cfg: `python -m ops.cluster deploy-config`).",
        "global",
        "    maxconn 4096",
        # a request is retried on another replica (retry-on below) only when the whole of
        # it is in one buffer: Rasa's call to an action server carries the conversation's
        # tracker, 33 KB after four turns of the sizing script and growing 8 KB a turn,
        # past the default 16 KB, so a killed action server's call died with it. Rasa
        # deflates the call (COMPRESS_ACTION_SERVER_REQUEST, ops.cluster: 5.8 KB after
        # four turns, 8.8 KB after twenty), and 32 KB leaves room for hundreds of turns
        # (at most 2 buffers a connection: 256 MB at maxconn, allocated only while in use)
        f"    tune.bufsize {BUFSIZE}",
        "defaults",
        "    mode http",
        "    timeout connect 2s",
        "    timeout client 120s",
        "    timeout server 120s",
        "    timeout tunnel 1h",
        # a health check may take this long under load: at the default (inter, 1 s) checks
        # that timed out on a busy machine took healthy replicas out; a dead one still
        # fails at once (connection refused)
        "    timeout check 10s",
        "    retries 3",
        "    option redispatch 1",
        "    retry-on conn-failure empty-response",
        "    option http-buffer-request",
        # the address HAProxy saw, appended to X-Forwarded-For (the API's rate limit and
        # uvicorn trust the last entry only from the balancer); without it a client's own
        # header passed through unchanged and named any client it liked
        "    option forwardfor",
        # a replica is checked every second, every 250 ms while it is going up or down
        # (fastinter: a restarted one takes turns 0.25 s after its first good check, not
        # 1 s), every 500 ms while down (downinter: a restarted one is seen sooner)
        "    default-server inter 1s fastinter 250ms downinter 500ms fall 2 rise 2",
    ]
    for frontend in frontends:
        servers = [f"    server {frontend.name}-{n + 1} {address} check" for n, address in enumerate(frontend.backends)]
        lines += [f"frontend {frontend.name}", f"    bind {host}:{frontend.port}"]
        if frontend.public_paths:
            lines += [f"    http-request deny deny_status 403 unless {{ path_beg {' '.join(frontend.public_paths)} }}"]
        if frontend.sticky_path:
            lines += [
                f"    use_backend {frontend.name}_sticky if {{ path_beg {frontend.sticky_path} }}",
            ]
        lines += [f"    default_backend {frontend.name}", f"backend {frontend.name}", "    balance roundrobin"]
        lines += [f"    option httpchk GET {frontend.health_path}", *servers]
        if frontend.sticky_path:
            lines += [
                f"backend {frontend.name}_sticky",
                "    balance roundrobin",
                "    cookie REPLICA insert indirect nocache",
                f"    option httpchk GET {frontend.health_path}",
                *[f"{line} cookie r{n + 1}" for n, line in enumerate(servers)],
            ]
    return "\n".join(lines) + "\n"


def haproxy(config_dir: Path, frontends: Sequence[Frontend], host: str = "127.0.0.1") -> Service:
    """HAProxy in the foreground, one process (no master-worker, no daemon)."""
    config_dir = config_dir.resolve()
    config = config_dir / "haproxy.cfg"

    def prepare() -> None:
        config_dir.mkdir(parents=True, exist_ok=True)
        config.write_text(haproxy_config(frontends, host))

    first = frontends[0]
    return Service(
        "balancer",
        [shutil.which("haproxy") or "/usr/sbin/haproxy", "-db", "-f", str(config)],
        config_dir,
        first.port,
        http_ok(f"http://127.0.0.1:{first.port}{first.health_path}"),
        20.0,
        host=host,
        prepare=prepare,
    )


if __name__ == "__main__":
    # `python -m ops.parts install`: the Makefile's way to install what is missing
    if sys.argv[1:] == ["install"]:
        ensure_installed()
