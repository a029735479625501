"""``trustprobe serve --workers 2``: real worker processes share rate limits and the weights."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from tests.service.conftest import NOW, bearer
from tests.store.databases import BACKENDS, database
from tests.store.records import eval_record, parsed
from trustprobe.store import EvidenceSource, Scope, create_api_key, ingest_evidence, open_store

PER_MINUTE = 10
"""The limit of the test: 10 requests a minute, all of them available at once."""
CONNECTIONS = 8
REQUESTS_PER_CONNECTION = 6
REQUESTS = CONNECTIONS * REQUESTS_PER_CONNECTION


@dataclass(frozen=True)
class Service:
    url: str
    key: str
    log: list[str]


def _started(process: subprocess.Popen[str], log: list[str]) -> tuple[str, threading.Thread]:
    """Read stderr until both workers completed startup; returns the URL and stderr's drain."""
    assert process.stderr is not None
    deadline = time.monotonic() + 120
    url = None
    ready = 0
    while ready < 2:
        line = process.stderr.readline()
        assert line, f"serve exited early: {''.join(log)}"
        log.append(line)
        found = re.search(r"serving .* on (http://127\.0\.0\.1:\d+) with 2 workers", line)
        url = found.group(1) if found else url
        ready += "Application startup complete" in line
        assert time.monotonic() < deadline, "".join(log)
    assert url is not None, "".join(log)
    # Keep draining stderr so the workers never block on a full pipe.
    drain = threading.Thread(target=lambda: log.extend(process.stderr or ()), daemon=True)
    drain.start()
    return url, drain


@contextmanager
def _serving(url: str, extra_env: dict[str, str], *options: str) -> Iterator[tuple[str, list[str]]]:
    """``trustprobe serve --workers 2`` on ``url``; yields its base URL and its stderr lines."""
    command = [sys.executable, "-m", "trustprobe", "serve", "--workers", "2", "--port", "0"]
    process = subprocess.Popen(
        [*command, *options],
        env={"TRUSTPROBE_DATABASE_URL": url, "COLUMNS": "200", "PATH": "/usr/bin:/bin"} | extra_env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    log: list[str] = []
    drain = None
    try:
        base_url, drain = _started(process, log)
        yield base_url, log
    finally:
        process.terminate()
        process.wait(timeout=60)
        if drain is not None:
            drain.join(timeout=10)
        if process.stderr is not None:
            process.stderr.close()


@pytest.fixture(params=BACKENDS)
def service(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Service]:
    with database(request.param, tmp_path) as url:
        store = open_store(url, upgrade=True)
        key = create_api_key(store, organisation="acme", scopes=frozenset({Scope.READ}), now=NOW)
        record = eval_record("e1", "agent", "accuracy", 90, observed_at=NOW)
        ingest_evidence(
            store,
            parsed(record),
            organisation="acme",
            now=NOW,
            source=EvidenceSource.API,
        )
        store.close()
        rate = str(PER_MINUTE / 60)
        limits = ("--rate-limit", rate, "--rate-burst", str(PER_MINUTE))
        anonymous = ("--anonymous-rate-limit", rate, "--anonymous-rate-burst", str(PER_MINUTE))
        with _serving(url, {}, *limits, *anonymous) as (base_url, log):
            yield Service(base_url, key.key, log)


def _hammer(url: str, headers: dict[str, str]) -> list[httpx.Response]:
    """REQUESTS requests for one agent's score over CONNECTIONS keep-alive connections at once."""

    def connection(_: int) -> list[httpx.Response]:
        with httpx.Client(base_url=url, timeout=30) as client:
            return [
                client.get("/v1/agents/agent/score", headers=headers)
                for _ in range(REQUESTS_PER_CONNECTION)
            ]

    with ThreadPoolExecutor(max_workers=CONNECTIONS) as pool:
        return [r for batch in pool.map(connection, range(CONNECTIONS)) for r in batch]


def _check_refused(responses: list[httpx.Response]) -> None:
    for response in responses:
        if response.status_code == 429:
            # One token every 60 / 10 = 6 s: the wait is at most 6 s, at least 1.
            assert 1 <= int(response.headers["retry-after"]) <= 60 // PER_MINUTE


def test_a_key_gets_exactly_its_limit_across_both_workers(service: Service) -> None:
    responses = _hammer(service.url, bearer(service.key))
    statuses = Counter(r.status_code for r in responses)
    # Per-process buckets would let up to 2 x 10 through.
    assert statuses == {200: PER_MINUTE, 429: REQUESTS - PER_MINUTE}, service.log[-5:]
    _check_refused(responses)


def test_an_address_without_a_key_gets_exactly_its_limit_across_both_workers(
    service: Service,
) -> None:
    responses = _hammer(service.url, {})
    statuses = Counter(r.status_code for r in responses)
    assert statuses == {401: PER_MINUTE, 429: REQUESTS - PER_MINUTE}, service.log[-5:]
    _check_refused(responses)


def test_every_worker_scores_with_the_weight_override_of_the_environment(tmp_path: Path) -> None:
    # Workers are spawned processes: the override reaches them only through the environment
    # they inherit. Accuracy 100 and reliability 0 score 714 under this override (the golden
    # case weights-override-applied) and 524 under the base weights.
    override = tmp_path / "weights.json"
    override.write_text(json.dumps({"accuracy": 0.15, "reliability": 0.06}), encoding="utf-8")
    with database("sqlite", tmp_path) as url:
        store = open_store(url, upgrade=True)
        scopes = frozenset({Scope.READ, Scope.WRITE})
        key = create_api_key(store, organisation="acme", scopes=scopes, now=NOW).key
        store.close()
        environment = {"TRUSTPROBE_WEIGHTS_OVERRIDE": str(override)}
        with _serving(url, environment) as (base_url, log):
            agents = [f"agent-{n}" for n in range(12)]
            observed = datetime.now(UTC)  # within the decay grace period: no decay to account for
            for agent in agents:  # a new connection each: the workers take turns accepting
                records = [
                    eval_record(f"{agent}-a", agent, "accuracy", 100, observed_at=observed),
                    eval_record(f"{agent}-r", agent, "reliability", 0, observed_at=observed),
                ]
                posted = httpx.post(
                    f"{base_url}/v1/evidence", json=records, headers=bearer(key), timeout=30
                )
                assert posted.status_code == 200, (posted.text, log[-5:])
            with httpx.Client(base_url=base_url, headers=bearer(key), timeout=30) as client:
                answers = [client.get(f"/v1/agents/{a}/score").json() for a in agents]
    scores = {(a["score"]["composite"], a["score"]["weights_source"]) for a in answers}
    assert scores == {(714, "override")}
