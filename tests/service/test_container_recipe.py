"""The container recipe: the Dockerfile and docker-compose.yml say what docs/service.md says.

No Docker daemon is needed: the files are parsed, and the image's health check command is run
for real against a live service on loopback.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.service.live import serve
from trustprobe.service import ServiceSettings
from trustprobe.store import TrustStore, open_store

ROOT = Path(__file__).resolve().parents[2]


def _instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of the Dockerfile, continuation lines joined, comments dropped."""
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    logical = re.sub(r"\\\n\s*", " ", text)
    found = []
    for line in logical.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            word, _, rest = stripped.partition(" ")
            found.append((word.upper(), rest.strip()))
    return found


def _final_stage() -> list[tuple[str, str]]:
    instructions = _instructions()
    last_from = max(i for i, (word, _) in enumerate(instructions) if word == "FROM")
    return instructions[last_from:]


def _healthcheck_command() -> list[str]:
    (healthcheck,) = [args for word, args in _final_stage() if word == "HEALTHCHECK"]
    command: list[str] = json.loads(healthcheck[healthcheck.index("CMD ") + 4 :])
    return command


def test_the_image_is_multi_stage_and_runs_as_an_unprivileged_user() -> None:
    stages = [args for word, args in _instructions() if word == "FROM"]
    assert len(stages) >= 2 and all(" AS " in stage.upper() for stage in stages)
    final = _final_stage()
    assert any(word == "COPY" and args.startswith("--from=build") for word, args in final)
    (user,) = [args for word, args in final if word == "USER"]
    assert user not in ("root", "0")
    assert any(word == "RUN" and "useradd" in args and user in args for word, args in final)
    (cmd,) = [json.loads(args) for word, args in final if word == "CMD"]
    assert cmd[:2] == ["trustprobe", "serve"]
    assert cmd[cmd.index("--host") + 1] == "0.0.0.0"
    (exposed,) = [args for word, args in final if word == "EXPOSE"]
    assert cmd[cmd.index("--port") + 1] == exposed == "8000"
    assert "'http://127.0.0.1:8000/readyz'" in _healthcheck_command()[-1]


@pytest.fixture
def ready_store(tmp_path: Path) -> Iterator[TrustStore]:
    store = open_store(f"sqlite:///{tmp_path / 'store.db'}", upgrade=True)
    yield store
    store.close()


def _run_healthcheck(port: int) -> int:
    command = _healthcheck_command()
    assert command[:2] == ["python", "-c"]
    script = command[2].replace("127.0.0.1:8000", f"127.0.0.1:{port}")
    return subprocess.run([sys.executable, "-c", script], timeout=30).returncode


def test_the_image_health_check_passes_when_ready_and_fails_when_not(
    ready_store: TrustStore,
) -> None:
    with serve(ready_store, ServiceSettings()) as url:
        port = int(url.rsplit(":", 1)[1])
        assert _run_healthcheck(port) == 0
        with ready_store.engine.begin() as connection:
            connection.exec_driver_sql("UPDATE alembic_version SET version_num = '0000_older'")
        assert _run_healthcheck(port) == 1  # 503: migrations not current
    assert _run_healthcheck(port) == 1  # nothing listening


def test_compose_runs_the_service_on_postgresql_after_migrations() -> None:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text(encoding="utf-8"))
    services = compose["services"]
    db, migrate, api = services["db"], services["migrate"], services["api"]
    assert db["image"].startswith("postgres:")
    assert "pg_isready" in " ".join(db["healthcheck"]["test"])
    assert migrate["build"] == "."
    assert migrate["command"] == ["trustprobe", "db", "upgrade"]
    assert api["image"] == migrate["image"]  # the image built from the Dockerfile
    assert api["depends_on"] == {
        "db": {"condition": "service_healthy"},
        "migrate": {"condition": "service_completed_successfully"},
    }
    for service in (migrate, api):
        url = service["environment"]["TRUSTPROBE_DATABASE_URL"]
        assert url.startswith("postgresql+psycopg://trustprobe:${TRUSTPROBE_DB_PASSWORD}@db:5432/")
    # No password is written in the file: it must come from the environment.
    assert db["environment"]["POSTGRES_PASSWORD"].startswith("${TRUSTPROBE_DB_PASSWORD:?")
    assert api["ports"] == ["127.0.0.1:8000:8000"]
