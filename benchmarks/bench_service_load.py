"""The service at load: `serve --workers 2` against `--workers 1`, on SQLite and PostgreSQL.

For each database a fresh store holds 200 scored agents (six ``eval`` records each, through
``ingest_evidence``). Then, for ``--workers 1`` (baseline: one process, its own rate-limit
buckets), ``--workers 1 --shared-limits`` (the cost of buckets in the store) and ``--workers 2``
(buckets in the store), the real CLI serves it on a free loopback port and an open-loop
generator in its own process sends ``GET /v1/agents/{id}/score`` for the 200 agents in turn:

1. 200 requests/s for 10 s: p50, p99, max, server CPU per request (every process of the server);
2. a ramp, 5 s per step, from 200 requests/s up, until p99 passes 50 ms or a request fails: the
   last rate that held is the "sustainable rate".

The generator is a lean HTTP/1.1 client on asyncio streams (httpx's own client costs more CPU
per request than the server on a 2-core machine, and would measure itself). A latency counts
from the request's scheduled start, so waiting for a connection counts too.

Also in the same run, in this process: one store read plus rendering per request, the old way
(parse the stored score into the model, serialise the model) against the stored bytes spliced in
(the read, one statement, is the same in both).
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from benchmarks.postgres import create_schema, drop_schemas
from benchmarks.raw_http import exchange, wait_until_serving
from trustprobe.store import (
    EvidenceSource,
    Scope,
    canonical_score,
    canonical_score_json,
    create_api_key,
    ingest_evidence,
    open_store,
)
from trustprobe.trust import parse_evidence

AGENTS = 200
DIMENSIONS = ("accuracy", "reliability", "safety", "security", "selfAudit", "skillMastery")
ORGANISATION = "load"
FIXED_RATE = 200
FIXED_SECONDS = 10
RAMP = (200, 300, 400, 500, 600, 800, 1000, 1200, 1500)
RAMP_SECONDS = 5
TARGET_P99_MS = 50.0
CONNECTIONS = 32
REPO = Path(__file__).resolve().parents[1]


def fill(url: str, now: datetime) -> str:
    """Migrate the store, score AGENTS agents, and return a read key."""
    store = open_store(url, upgrade=True)
    rng = random.Random(11)
    records = [
        parse_evidence(
            {
                "id": f"e-{agent}-{dimension}",
                "agent_id": f"agent-{agent}",
                "dimension": dimension,
                "observed_at": now.isoformat(),
                "kind": "eval",
                "score": rng.randint(40, 100),
            }
        )
        for agent in range(AGENTS)
        for dimension in DIMENSIONS
    ]
    ingest_evidence(store, records, organisation=ORGANISATION, now=now, source=EvidenceSource.API)
    key = create_api_key(
        store, organisation=ORGANISATION, scopes=frozenset({Scope.READ}), now=now
    ).key
    store.close()
    return key


def render_paths(url: str) -> None:
    """Store read + rendering per request, in this process: model round trip vs stored bytes."""
    store = open_store(url)
    agents = [f"agent-{i}" for i in range(AGENTS)]

    def old(agent: str) -> bytes:
        found = canonical_score(store, organisation=ORGANISATION, agent_id=agent)
        return found.model_dump_json().encode()

    def new(agent: str) -> bytes:
        return canonical_score_json(store, organisation=ORGANISATION, agent_id=agent)

    assert all(old(a) == new(a) for a in agents)
    timings = {}
    for label, path in (("parse + serialise (old)", old), ("stored bytes", new)):
        best = float("inf")
        for _ in range(5):
            start = time.process_time()
            for agent in agents:
                path(agent)
            best = min(best, time.process_time() - start)
        timings[label] = best * 1000 / AGENTS
    store.close()
    old_ms, new_ms = timings.values()
    print(
        f"  read + render per request (CPU, best of 5 x {AGENTS}): old {old_ms:.3f} ms,"
        f" stored bytes {new_ms:.3f} ms ({old_ms / new_ms:.2f}x)"
    )


def load(base_url: str, key: str, rate: int, seconds: float, queue: Any) -> None:
    """Open-loop load (its own process): ``rate`` requests/s for ``seconds``, keep-alive."""
    host, port = base_url.removeprefix("http://").split(":")

    def request(i: int) -> bytes:
        return (
            f"GET /v1/agents/agent-{i % AGENTS}/score HTTP/1.1\r\nHost: {host}\r\n"
            f"Authorization: Bearer {key}\r\n\r\n"
        ).encode()

    async def run() -> tuple[list[float], int]:
        latencies: list[float] = []
        failures = 0
        work: asyncio.Queue[tuple[int, float] | None] = asyncio.Queue()

        async def connection() -> None:
            nonlocal failures
            reader, writer = await asyncio.open_connection(host, int(port))
            while (item := await work.get()) is not None:
                i, scheduled = item
                failures += b" 200 " not in await exchange(reader, writer, request(i))
                latencies.append(time.perf_counter() - scheduled)
            writer.close()

        tasks = [asyncio.create_task(connection()) for _ in range(CONNECTIONS)]
        for i in range(CONNECTIONS * 4):  # warm every connection, and the workers' caches
            work.put_nowait((i, time.perf_counter()))
        while len(latencies) < CONNECTIONS * 4:
            await asyncio.sleep(0.01)
        latencies.clear()
        failures = 0
        count = int(rate * seconds)
        start = time.perf_counter() + 0.1
        for i in range(count):
            delay = start + i / rate - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            work.put_nowait((i, start + i / rate))
        for _ in tasks:
            work.put_nowait(None)
        await asyncio.wait_for(asyncio.gather(*tasks), timeout=seconds * 20 + 60)
        return latencies, failures

    queue.put(asyncio.run(run()))


def tree_cpu_seconds(pid: int) -> float:
    """User + system CPU time so far of a process and its living children (Linux ``/proc``)."""
    total = 0.0
    pending = [pid]
    while pending:
        current = pending.pop()
        try:
            fields = Path(f"/proc/{current}/stat").read_text().rsplit(")", 1)[1].split()
            for task in Path(f"/proc/{current}/task").iterdir():
                pending += [int(c) for c in (task / "children").read_text().split()]
        except FileNotFoundError:
            continue
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def percentile(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=1000)[int(q * 1000) - 1]


def measure(base: str, key: str, server: int, rate: int, seconds: float) -> dict[str, float]:
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    worker = context.Process(target=load, args=(base, key, rate, seconds, queue))
    cpu_before = tree_cpu_seconds(server)
    worker.start()
    values, failures = queue.get(timeout=seconds * 30 + 120)
    worker.join(timeout=30)
    ms = sorted(v * 1000 for v in values)
    return {
        "requests": len(ms),
        "failures": failures,
        "p50": percentile(ms, 0.5),
        "p99": percentile(ms, 0.99),
        "max": ms[-1],
        "cpu_ms": (tree_cpu_seconds(server) - cpu_before) * 1000 / len(ms),
    }


def serve_and_load(url: str, key: str, workers: int, shared: bool) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [sys.executable, "-m", "trustprobe", "serve", "--port", str(port)]
    command += ["--workers", str(workers), "--database-url", url]
    command += ["--shared-limits"] if shared else []
    # Limits far above the load: every request still takes a token (in the store with 2 workers).
    command += ["--rate-limit", "100000", "--rate-burst", "100000"]
    server = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=REPO
    )
    base = f"http://127.0.0.1:{port}"
    label = f"--workers {workers}" + (" --shared-limits" if shared and workers == 1 else "")
    label += " (baseline)" if not shared else ""
    try:
        wait_until_serving(f"{base}/readyz", server, "trustprobe serve")
        time.sleep(2)  # let every worker finish starting
        fixed = measure(base, key, server.pid, FIXED_RATE, FIXED_SECONDS)
        print(
            f"  {label:33s} {fixed['requests']:5.0f} requests at {FIXED_RATE}/s:"
            f" p50 {fixed['p50']:6.1f} ms  p99 {fixed['p99']:6.1f} ms  max {fixed['max']:7.1f} ms;"
            f" server CPU {fixed['cpu_ms']:.2f} ms/request; failures {fixed['failures']:.0f}",
            flush=True,
        )
        held = None
        steps = []
        for rate in RAMP:
            step = measure(base, key, server.pid, rate, RAMP_SECONDS)
            steps.append(f"{rate}/s p99 {step['p99']:.1f}")
            if step["failures"] or step["p99"] > TARGET_P99_MS:
                break
            held = rate
        print(
            f"  {label:33s} ramp: {'; '.join(steps)} ms -> sustainable"
            f" {'below ' + str(RAMP[0]) if held is None else held}/s"
            f" (p99 <= {TARGET_P99_MS:.0f} ms)",
            flush=True,
        )
    finally:
        server.terminate()
        server.wait(timeout=30)


def run_backend(label: str, url: str, now: datetime) -> None:
    load1, load5, _ = os.getloadavg()
    print(
        f"{label}: {AGENTS} agents; {os.cpu_count()} cores, load average"
        f" {load1:.1f} / {load5:.1f} (1 / 5 min)",
        flush=True,
    )
    key = fill(url, now)
    render_paths(url)
    for workers, shared in ((1, False), (1, True), (2, True)):
        serve_and_load(url, key, workers, shared)


def main() -> None:
    now = datetime.now(UTC)
    with tempfile.TemporaryDirectory() as directory:
        run_backend("sqlite", f"sqlite:///{directory}/load.db", now)
    found = create_schema()
    if found is not None:
        try:
            run_backend("postgresql", found[0], now)
        finally:
            drop_schemas([found[1]])


if __name__ == "__main__":
    main()
