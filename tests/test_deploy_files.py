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


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load((DEPLOY / "docker-compose.yml").read_text())


@pytest.fixture(scope="module")
def processes() -> dict[str, cluster.Service]:
    layout = cluster.Layout("127.0.0.1", 8000, 5005, 5432, 6379, 7000, Path("/nonexistent"))
    return {service.name: service for service in cluster.services(layout)}


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
