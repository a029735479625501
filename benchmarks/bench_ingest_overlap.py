"""PostgreSQL ingestion in process: the evidence COPY beside the scoring, against waiting for it.

``ingest_evidence`` on a throw-away PostgreSQL schema (127.0.0.1:5432, database ``test``), no
history, batches of ``BATCH`` records about ``AGENTS`` agents (the records of the service
benchmark), after a warm-up batch. Two ways, alternated ``ROUNDS`` times, each on a fresh schema:

* ``beside``: this tree, where the COPY runs on its own thread while the scores are computed;
* ``waited``: the same code with the COPY made to finish before the scoring starts (the order
  before), by swapping the store's insert step for one that copies first.

Per record: wall time, the service's CPU, the CPU of its PostgreSQL backend (from ``/proc``),
how long the COPY lasted and how long the transaction waited for it after the scoring.
``python -m benchmarks ingest_overlap``.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

from benchmarks.bench_service_ingest import AGENTS, BATCH, ORGANISATION, records
from benchmarks.postgres import create_schema, drop_schemas

BATCHES = 8
ROUNDS = 3


def _backend_cpu(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure(way: str) -> dict[str, float] | None:
    """One way on a fresh schema: figures per record, or ``None`` without PostgreSQL."""
    from pydantic import TypeAdapter
    from sqlalchemy import create_engine, text
    from sqlalchemy.pool import StaticPool

    import trustprobe.store.evidence as evidence
    from trustprobe.store import EvidenceSource, open_store
    from trustprobe.store.store import TrustStore
    from trustprobe.trust import Evidence

    found = create_schema()
    if found is None:
        return None
    url, schema = found
    timings = {"copy": 0.0, "wait": 0.0}
    beside = evidence._inserting

    class TimedThread(threading.Thread):
        def run(self) -> None:
            started = time.perf_counter()
            super().run()
            timings["copy"] += time.perf_counter() - started

        def join(self, timeout: float | None = None) -> None:
            started = time.perf_counter()
            super().join(timeout)
            timings["wait"] += time.perf_counter() - started

    @contextlib.contextmanager
    def waited(connection: Any, rows: Sequence[tuple[Any, ...]]) -> Iterator[None]:
        started = time.perf_counter()
        with beside(connection, rows):  # the body is empty: the COPY ends here
            pass
        timings["copy"] += time.perf_counter() - started
        timings["wait"] += time.perf_counter() - started
        yield

    open_store(url, upgrade=True).close()
    engine = create_engine(url, poolclass=StaticPool)  # one connection: one backend to watch
    store = TrustStore(engine)
    adapter = TypeAdapter(list[Evidence])
    original_thread = evidence.threading.Thread
    try:
        evidence.threading.Thread = TimedThread  # type: ignore[misc]
        if way == "waited":
            evidence._inserting = waited
        with engine.connect() as connection:
            backend = connection.execute(text("SELECT pg_backend_pid()")).scalar_one()
        now = datetime.now(UTC)
        bodies = [
            json.dumps(records(BATCH, "m", now, aged="0", seed=500 + i)).encode()
            for i in range(BATCHES + 1)
        ]

        def ingest(body: bytes) -> None:
            evidence.ingest_evidence(
                store, adapter.validate_json(body), organisation=ORGANISATION, now=now,
                source=EvidenceSource.API,
            )  # fmt: skip

        ingest(bodies[0])
        timings.update(copy=0.0, wait=0.0)
        wall, cpu, server = time.perf_counter(), time.process_time(), _backend_cpu(backend)
        for body in bodies[1:]:
            ingest(body)
        count = BATCHES * BATCH
        return {
            "wall": (time.perf_counter() - wall) / count * 1e6,
            "cpu": (time.process_time() - cpu) / count * 1e6,
            "server": (_backend_cpu(backend) - server) / count * 1e6,
            "copy": timings["copy"] / count * 1e6,
            "wait": timings["wait"] / count * 1e6,
        }
    finally:
        evidence.threading.Thread = original_thread  # type: ignore[misc]
        evidence._inserting = beside
        engine.dispose()
        drop_schemas([schema])


def main() -> None:
    load1, load5, _ = os.getloadavg()
    print(
        f"ingest_evidence on PostgreSQL, {BATCHES} batches of {BATCH} records about {AGENTS}"
        f" agents; load average {load1:.1f} / {load5:.1f} (1 / 5 min); µs per record"
    )
    for _ in range(ROUNDS):
        for way in ("beside", "waited"):
            figures = measure(way)
            if figures is None:
                return
            print(
                f"COPY {way:6s}: wall {figures['wall']:5.1f}, service CPU {figures['cpu']:5.1f},"
                f" PostgreSQL backend CPU {figures['server']:5.1f}; the COPY lasted"
                f" {figures['copy']:5.1f}, the transaction waited {figures['wait']:5.1f} for it",
                flush=True,
            )


if __name__ == "__main__":
    main()
