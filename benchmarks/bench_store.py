"""Store and service: batched evidence ingestion, and GET score latency under load.

1. Ingestion into SQLite and PostgreSQL of 20,000 evidence records about 200 agents:
   - the bulk write path: chain hashing plus one bulk insert (executemany on SQLite, COPY on
     PostgreSQL) per transaction of 5,000 records;
   - the naive baseline, same run, same hashing: one INSERT per record, each in its own
     transaction (2,000 records, rate extrapolated);
   - end to end through ``ingest_evidence``: the write path plus duplicate/conflict checks
     and the rescoring of every touched agent, in batches of 5,000 (a 1 MiB API body holds about
     that many) and in one batch of 20,000 (``trust record`` of one file).
2. ``GET /v1/agents/{id}/score`` at 200 requests/s for 10 s on loopback: ``trustprobe serve`` in
   its own process over the SQLite store of step 1, and an open-loop load generator in a third
   process (latency counts from each request's scheduled start, so a stall is not hidden).
   Baseline in the same run: the same load on a request without a key (401: HTTP stack and
   routing, no database).
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

from sqlalchemy import insert, select

from benchmarks.postgres import create_schema, drop_schemas
from benchmarks.raw_http import exchange, wait_until_serving
from trustprobe.store import (
    EvidenceSource,
    Scope,
    TrustStore,
    create_api_key,
    ingest_evidence,
    open_store,
)
from trustprobe.store.chains import GENESIS, evidence_envelope, link_hash, sha256_hex
from trustprobe.store.database import write_transaction
from trustprobe.store.evidence import (
    _append_evidence,
    ensure_agents,
    lock_organisation,
    prepare_batch,
)
from trustprobe.store.schema import EvidenceRow
from trustprobe.trust import Evidence, evidence_canonical_json, parse_evidence

RECORDS = 20_000
NAIVE_RECORDS = 2_000
AGENTS = 200
BATCH = 5_000
RATE = 200
DURATION_S = 10
DIMENSIONS = ("accuracy", "reliability", "safety", "security", "selfAudit", "skillMastery")
REPO = Path(__file__).resolve().parents[1]


def make_records(count: int, prefix: str, now: datetime) -> list[Evidence]:
    rng = random.Random(7)
    return [
        parse_evidence(
            {
                "id": f"{prefix}-{i}",
                "agent_id": f"agent-{i % AGENTS}",
                "dimension": DIMENSIONS[i % len(DIMENSIONS)],
                "observed_at": now.isoformat(),
                "kind": "eval",
                "score": rng.randint(40, 100),
            }
        )
        for i in range(count)
    ]


def end_to_end(
    store: TrustStore, records: list[Evidence], now: datetime, batch: int, organisation: str
) -> tuple[float, float]:
    start = time.perf_counter()
    cpu = time.process_time()
    for offset in range(0, len(records), batch):
        result = ingest_evidence(
            store,
            records[offset : offset + batch],
            organisation=organisation,
            now=now,
            source=EvidenceSource.API,
        )
        assert result.accepted == len(records[offset : offset + batch])
    return time.perf_counter() - start, time.process_time() - cpu


def write_path(store: TrustStore, records: list[Evidence], now: datetime) -> tuple[float, float]:
    """Chain hashing and one bulk insert per transaction of BATCH records, no rescoring."""
    start = time.perf_counter()
    cpu = time.process_time()
    for offset in range(0, len(records), BATCH):
        chunk = records[offset : offset + BATCH]
        prepared = prepare_batch(store, chunk, now=now).items
        with write_transaction(store.engine) as connection:
            organisation_id = lock_organisation(connection, "bulk", now=now)
            agents = ensure_agents(
                connection, organisation_id, sorted({r.agent_id for r in chunk}), now=now
            )
            _append_evidence(
                connection,
                organisation_id,
                agents,
                prepared,
                now=now,
                source=EvidenceSource.API,
                probe_run_id=None,
            )
    return time.perf_counter() - start, time.process_time() - cpu


def naive(store: TrustStore, records: list[Evidence], now: datetime) -> tuple[float, float]:
    """One INSERT per record, one transaction each; same hashing, no rescoring."""
    start = time.perf_counter()
    cpu = time.process_time()
    for record in records:
        content = evidence_canonical_json(record)
        with write_transaction(store.engine) as connection:
            organisation_id = lock_organisation(connection, "naive", now=now)
            agent_pk = ensure_agents(connection, organisation_id, [record.agent_id], now=now)[
                record.agent_id
            ]
            head = connection.execute(
                select(EvidenceRow.row_hash)
                .where(EvidenceRow.organisation_id == organisation_id)
                .order_by(EvidenceRow.seq.desc())
                .limit(1)
            ).scalar_one_or_none()
            prev = head or GENESIS
            connection.execute(
                insert(EvidenceRow),
                {
                    "organisation_id": organisation_id,
                    "agent_pk": agent_pk,
                    "evidence_id": record.id,
                    "dimension": str(record.dimension),
                    "kind": record.kind,
                    "observed_at": record.observed_at,
                    "content": content,
                    "content_sha256": sha256_hex(content),
                    "source": "api",
                    "probe_run_id": None,
                    "received_at": now,
                    "prev_hash": prev,
                    "row_hash": link_hash(
                        prev,
                        evidence_envelope(
                            content=content, source="api", received_at=now, probe_run_id=None
                        ),
                    ),
                },
            )
    return time.perf_counter() - start, time.process_time() - cpu


def ingestion(url: str, label: str, now: datetime) -> None:
    store = open_store(url, upgrade=True)
    try:
        figures = [
            ("bulk write path", RECORDS, write_path(store, make_records(RECORDS, "w", now), now)),
            (
                "naive row at a time",
                NAIVE_RECORDS,
                naive(store, make_records(NAIVE_RECORDS, "n", now), now),
            ),
            (
                f"ingest_evidence, batches of {BATCH}",
                RECORDS,
                end_to_end(store, make_records(RECORDS, "e", now), now, BATCH, "e2e-5k"),
            ),
            (
                f"ingest_evidence, one batch of {RECORDS}",
                RECORDS,
                end_to_end(store, make_records(RECORDS, "o", now), now, RECORDS, "e2e-20k"),
            ),
        ]
    finally:
        store.close()
    naive_rate = figures[1][1] / figures[1][2][0]
    for name, count, (seconds, cpu) in figures:
        rate = count / seconds
        print(
            f"{label:10s} {name:38s} {count:6d} records {seconds:6.2f} s {rate:9,.0f} records/s"
            f" ({rate / naive_rate:5.1f}x naive); client CPU {cpu:5.2f} s"
            f" = {count / cpu:9,.0f} records per CPU-second"
        )


CONNECTIONS = 16


def load(base_url: str, key: str | None, queue: Any) -> None:
    """Open-loop load generator (its own process): RATE requests/s over keep-alive connections.

    A deliberately lean HTTP/1.1 client on asyncio streams, so that the generator itself is not
    what limits the rate on a small machine. A request's latency runs from its scheduled start,
    so time spent waiting for a free connection counts too.
    """
    host, port = base_url.removeprefix("http://").split(":")
    auth = "" if key is None else f"Authorization: Bearer {key}\r\n"
    expected = b" 200 " if key else b" 401 "

    def request(i: int) -> bytes:
        return (
            f"GET /v1/agents/agent-{i % AGENTS}/score HTTP/1.1\r\nHost: {host}\r\n{auth}\r\n"
        ).encode()

    async def run() -> list[float]:
        latencies: list[float] = []
        work: asyncio.Queue[tuple[int, float] | None] = asyncio.Queue()

        async def connection() -> None:
            reader, writer = await asyncio.open_connection(host, int(port))
            while (item := await work.get()) is not None:
                i, scheduled = item
                status = await exchange(reader, writer, request(i))
                assert expected in status, status
                latencies.append(time.perf_counter() - scheduled)
            writer.close()

        workers = [asyncio.create_task(connection()) for _ in range(CONNECTIONS)]
        for i in range(CONNECTIONS * 4):  # warm up every connection and the server's caches
            work.put_nowait((i, time.perf_counter()))
        while len(latencies) < CONNECTIONS * 4:
            await asyncio.sleep(0.01)
        latencies.clear()
        start = time.perf_counter() + 0.1
        for i in range(RATE * DURATION_S):
            delay = start + i / RATE - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            work.put_nowait((i, start + i / RATE))
        for _ in workers:
            work.put_nowait(None)
        await asyncio.wait_for(asyncio.gather(*workers), timeout=120)
        return latencies

    queue.put(asyncio.run(run()))


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=1000)[int(q * 1000) - 1]


def latency(url: str, now: datetime) -> None:
    store = open_store(url)
    # Organisation "e2e-20k" holds the 200 scored agents of the ingestion step.
    key = create_api_key(store, organisation="e2e-20k", scopes=frozenset({Scope.READ}), now=now).key
    store.close()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "trustprobe",
            "serve",
            "--port",
            str(port),
            "--database-url",
            url,
            "--rate-limit",
            "100000",
            "--rate-burst",
            "100000",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=REPO,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_serving(f"{base}/openapi.json", server, "trustprobe serve")
        context = multiprocessing.get_context("spawn")
        for label, used_key in (("baseline (401, no DB)", None), ("GET score", key)):
            queue = context.Queue()
            worker = context.Process(target=load, args=(base, used_key, queue))
            cpu_before = cpu_seconds(server.pid)
            worker.start()
            values = queue.get(timeout=DURATION_S * 20)
            worker.join(timeout=30)
            server_ms = (cpu_seconds(server.pid) - cpu_before) * 1000 / len(values)
            ms = sorted(v * 1000 for v in values)
            print(
                f"{label:22s} {len(ms)} requests at {RATE}/s: p50 {percentile(ms, 0.5):6.1f} ms"
                f"  p99 {percentile(ms, 0.99):6.1f} ms  max {ms[-1]:7.1f} ms;"
                f"  server CPU {server_ms:.2f} ms/request"
            )
    finally:
        server.terminate()
        server.wait(timeout=10)


def main() -> None:
    now = datetime.now(UTC)
    load1, load5, _ = os.getloadavg()
    print(
        f"ingestion: {RECORDS} records about {AGENTS} agents; {os.cpu_count()} cores, "
        f"load average {load1:.1f} / {load5:.1f} (1 / 5 min)"
    )
    with tempfile.TemporaryDirectory() as directory:
        sqlite_url = f"sqlite:///{directory}/bench.db"
        ingestion(sqlite_url, "sqlite", now)
        found = create_schema()
        if found is not None:
            try:
                ingestion(found[0], "postgresql", now)
            finally:
                drop_schemas([found[1]])
        load1, load5, _ = os.getloadavg()
        print(
            f"latency: trustprobe serve (SQLite, {AGENTS} agents) on loopback; "
            f"{os.cpu_count()} cores, load average {load1:.1f} / {load5:.1f} (1 / 5 min)"
        )
        latency(sqlite_url, now)


if __name__ == "__main__":
    main()
