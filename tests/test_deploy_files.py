"""deploy/ describes the processes `make run-cluster` starts (ops/cluster.py): the same
services, the same commands, the same wiring through environment variables, the same
balancer. Docker cannot run here, so this reads the files."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from ops import cluster
from ops.processes import REPO

DEPLOY = REPO / "deploy"
# set by the images themselves (deploy/Dockerfile*), not by the compose file
IMAGE_ENV = {
    "SANIC_HOST",
    "RASA_TELEMETRY_ENABLED",
    "SQLALCHEMY_SILENCE_UBER_WARNING",
    "PYTHONPATH",
    "OPENBLAS_NUM_THREADS",
}
SECRETS = {
    "FABRIC_ADVISOR_RASA_TOKEN": "t",
    "FABRIC_ADVISOR_SESSION_SECRET": "s",
    cluster.POSTGRES_PASSWORD: "p",
    cluster.REDIS_PASSWORD: "r",
}


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load((DEPLOY / "docker-compose.yml").read_text())


@pytest.fixture(scope="module")
def processes() -> dict[str, cluster.Service]:
    layout = cluster.Layout("127.0.0.1", 8000, 5005, 5432, 6379, 7000, Path("/nonexistent"))
    return {service.name: service for service in cluster.services(layout, SECRETS)}


def module_of(command: list[str]) -> str:
    """What a command runs: `python -m X` -> X (uvicorn: its app), else the program's name."""
    if "-m" in command:
        module = command[command.index("-m") + 1]
        return command[command.index("-m") + 2] if module == "uvicorn" else module
    return Path(command[0]).name


def test_compose_runs_the_same_processes_as_run_cluster(compose, processes):
    assert set(compose["services"]) == set(processes)


def test_each_replica_runs_the_same_program(compose, processes):
    for name, service in processes.items():
        spec = compose["services"][name]
        if name.startswith(("actions-", "api-")):
            assert module_of(spec["command"]) == module_of(service.command), name
        elif name.startswith("rasa-"):
            dockerfile = (DEPLOY / "Dockerfile.rasa").read_text()
            endpoints = service.command[service.command.index("--endpoints") + 1]
            assert f'"{endpoints}"' in dockerfile and (REPO / "bot" / endpoints).exists()
            assert spec["build"]["dockerfile"] == "deploy/Dockerfile.rasa"
        else:
            image = spec["image"].split(":")[0]
            assert image == {"postgres": "postgres", "redis": "redis", "balancer": "haproxy"}[name]
            assert module_of(service.command) in {"postgres", "redis-server", "haproxy"}


def test_each_process_gets_the_same_settings(compose, processes):
    for name, service in processes.items():
        wanted = set(service.env) - IMAGE_ENV
        given = set(compose["services"][name].get("environment") or {})
        assert wanted <= given, f"{name}: missing {sorted(wanted - given)}"


def test_the_balancer_config_is_the_one_run_cluster_writes():
    written = subprocess.run(
        [sys.executable, "-m", "ops.cluster", "deploy-config"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout
    assert (DEPLOY / "haproxy.cfg").read_text() == written
    for port in (8000, 5005):
        assert f"bind *:{port}" in written


def test_the_image_holds_every_package_the_processes_import():
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    pyproject = (REPO / "pyproject.toml").read_text()
    packages = re.search(r"packages = \[(.*?)\]", pyproject).group(1)
    for package in re.findall(r'"(\w+)"', packages):
        assert f"COPY {package} {package}" in dockerfile, package


def test_only_the_balancer_publishes_ports(compose):
    published = {name for name, spec in compose["services"].items() if spec.get("ports")}
    assert published == {"balancer"}


def test_the_balancer_passes_on_only_rasas_channels_not_its_http_api():
    config = (DEPLOY / "haproxy.cfg").read_text()
    rasa = config[config.index("frontend rasa") :]
    assert "http-request deny deny_status 403 unless { path_beg /socket.io /webhooks/ }" in rasa


def test_rasa_in_the_image_starts_locked_down_from_hashed_requirements(compose):
    dockerfile = (DEPLOY / "Dockerfile.rasa").read_text()
    assert '"rasa_run.py"' in dockerfile and '"*"' not in dockerfile and "--auth-token" not in dockerfile
    assert "--require-hashes -r /tmp/requirements-rasa.txt" in dockerfile
    for name in ("rasa-1", "rasa-2"):
        env = compose["services"][name]["environment"]
        for variable in ("FABRIC_ADVISOR_RASA_TOKEN", "FABRIC_ADVISOR_SESSION_SECRET", "RASA_REDIS_PASSWORD"):
            assert ":?set" in env[variable], (name, variable)  # compose refuses to start without it
    assert "--requirepass" in compose["services"]["redis"]["command"]


def test_every_install_is_pinned_and_the_rasa_requirements_carry_hashes():
    makefile = (REPO / "Makefile").read_text()
    version = re.search(r"^UV_VERSION := (\S+)$", makefile, re.MULTILINE).group(1)
    assert (
        '"uv==$(UV_VERSION)"' in makefile
        and f"RUN pip install --no-cache-dir uv=={version}" in (DEPLOY / "Dockerfile").read_text()
    )
    assert "--require-hashes -p $(RASA_VENV)/bin/python -r bot/requirements-rasa.txt" in makefile
    requirements = (REPO / "bot" / "requirements-rasa.txt").read_text()
    pins = re.findall(r"^([A-Za-z0-9_.\-\[\]]+)==(\S+)(.*?)(?=^\S|\Z)", requirements, re.MULTILINE | re.DOTALL)
    assert len(pins) > 100
    unhashed = [name for name, _, rest in pins if "--hash=sha256:" not in rest]
    assert not unhashed


def test_the_api_bounds_its_request_head_and_trusts_forwarded_addresses_from_the_balancer_only():
    from api.server import UVICORN_FLAGS
    from core.settings import settings
    from ops.run import api_command

    command = api_command(8000, "127.0.0.1")
    assert all(flag in command for flag in UVICORN_FLAGS)
    assert command[command.index("--forwarded-allow-ips") + 1] == settings.trusted_proxies
    assert "*" not in settings.trusted_proxies


def test_compose_api_trusts_forwarded_addresses_from_the_balancers_fixed_address_only(compose):
    """uvicorn behind the balancer: `--proxy-headers` with `--forwarded-allow-ips` set to the
    balancer's own address (fixed on the compose network), and the rate limit trusting the
    same one; anything wider (`*`, a subnet) lets a client name itself in X-Forwarded-For."""
    import ipaddress

    from ops.run import api_command

    balancer = compose["services"]["balancer"]["networks"]["default"]["ipv4_address"]
    [subnet] = [entry["subnet"] for entry in compose["networks"]["default"]["ipam"]["config"]]
    assert ipaddress.ip_address(balancer) in ipaddress.ip_network(subnet)
    expected = api_command(8000, "0.0.0.0")
    expected[expected.index("--forwarded-allow-ips") + 1] = balancer
    for name in ("api-1", "api-2"):
        spec = compose["services"][name]
        command = spec["command"]
        assert command[1:] == expected[1:], name  # the same flags as `make run-cluster`'s
        assert "--proxy-headers" in command and command[command.index("--forwarded-allow-ips") + 1] == balancer
        assert spec["environment"]["FABRIC_ADVISOR_TRUSTED_PROXIES"] == balancer, name
