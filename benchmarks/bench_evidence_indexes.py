"""What each index and constraint of the evidence table costs PostgreSQL per inserted row.

For each size in ``TRUSTPROBE_BENCH_HISTORY`` (default ``0,1000000``) the history is grown
about ``TRUSTPROBE_BENCH_BULK_AGENTS`` agents (default 2,000) as ``bench_service_ingest``'s
``bulk_fill`` does, in a throw-away schema of the PostgreSQL at 127.0.0.1:5432 (database
``test``). Then, for each variant, in one transaction that is rolled back afterwards (so every
variant starts from the same table): the variant's index or constraint is dropped, and
``BATCHES`` batches of 5,000 rows about 200 agents are appended through the store's own path
(chain hashes, binary ``COPY``), the first as a warm-up. Printed: the PostgreSQL backend's CPU
per row (from ``/proc``) and the wall time per row of the ``COPY``s. Variants alternate over
``TRUSTPROBE_BENCH_ROUNDS`` rounds (default 3), every round starting with all indexes.
"""

from __future__ import annotations

import os
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from benchmarks.bench_service_ingest import BATCH, ORGANISATION, _cpu_seconds, bulk_fill, records
from benchmarks.postgres import throwaway_database

BATCHES = 9


def variants(connection: Any) -> list[tuple[str, str | None]]:
    """(name, statement that removes it): each index and constraint of ``evidence``."""
    found: list[tuple[str, str | None]] = [("nothing (every index)", None)]
    rows = connection.exec_driver_sql(
        "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint "
        "WHERE conrelid = 'evidence'::regclass AND contype IN ('p', 'u', 'f') ORDER BY conname"
    )
    owned = set()
    for name, definition in rows:
        owned.add(name)
        found.append((definition, f'ALTER TABLE evidence DROP CONSTRAINT "{name}"'))
    rows = connection.exec_driver_sql(
        "SELECT indexname, indexdef FROM pg_indexes "
        "WHERE tablename = 'evidence' AND schemaname = current_schema() ORDER BY indexname"
    )
    for name, definition in rows:
        if name in owned:
            continue
        found.append((definition.split(" USING ", 1)[1], f'DROP INDEX "{name}"'))
    return found


def measure(store: Any, now: datetime, seed: int, drop: str | None) -> tuple[float, float]:
    """Backend CPU and wall time per row of the appends, with ``drop`` run first; rolled back."""
    from trustprobe.store import EvidenceSource
    from trustprobe.store.evidence import (
        _append_evidence,
        ensure_agents,
        lock_organisation,
        prepare_batch,
    )
    from trustprobe.trust import parse_evidence

    batches = [
        prepare_batch(
            store,
            [parse_evidence(r) for r in records(BATCH, "m", now, aged="0", seed=seed + i)],
            now=now,
        ).items
        for i in range(BATCHES)
    ]
    with store.engine.connect() as connection:
        transaction = connection.begin()
        try:
            pid = connection.exec_driver_sql("SELECT pg_backend_pid()").scalar_one()
            if drop is not None:
                connection.exec_driver_sql(drop)
            organisation_id = lock_organisation(connection, ORGANISATION, now=now)
            agents = ensure_agents(
                connection,
                organisation_id,
                sorted({item.record.agent_id for batch in batches for item in batch}),
                now=now,
            )
            cpu = wall = 0.0
            for number, batch in enumerate(batches):
                started_cpu, started = _cpu_seconds(pid), time.perf_counter()
                _append_evidence(
                    connection, organisation_id, agents, batch, now=now,
                    source=EvidenceSource.API, probe_run_id=None,
                )  # fmt: skip
                if number:  # the first is the warm-up
                    cpu += _cpu_seconds(pid) - started_cpu
                    wall += time.perf_counter() - started
        finally:
            transaction.rollback()
    rows = (BATCHES - 1) * BATCH
    return cpu / rows * 1e6, wall / rows * 1e6


def main() -> None:
    from trustprobe.store import open_store

    sizes = [int(s) for s in os.environ.get("TRUSTPROBE_BENCH_HISTORY", "0,1000000").split(",")]
    agents = int(os.environ.get("TRUSTPROBE_BENCH_BULK_AGENTS") or 2000)
    rounds = int(os.environ.get("TRUSTPROBE_BENCH_ROUNDS") or 3)
    now = datetime.now(UTC).replace(microsecond=0)
    with (
        tempfile.TemporaryDirectory() as directory,
        throwaway_database("postgresql", Path(directory), "indexes") as url,
    ):
        if url is None:
            return
        filled = 0
        for size in sizes:
            if size > filled:
                bulk_fill(url, filled, size, now.isoformat(), "spread", agents)
                filled = size
            store = open_store(url, upgrade=True)
            try:
                with store.engine.connect() as connection:
                    connection.exec_driver_sql("ANALYZE evidence")
                    connection.commit()
                    found = variants(connection)
                print(
                    f"history {filled:,d} rows, load average {os.getloadavg()[0]:.1f}: "
                    "backend CPU µs a row (wall µs a row) per round",
                    flush=True,
                )
                figures: dict[str, list[str]] = {name: [] for name, _ in found}
                for round_number in range(rounds):
                    for name, drop in found:
                        cpu, wall = measure(store, now, 1_000 * round_number, drop)
                        figures[name].append(f"{cpu:.1f} ({wall:.1f})")
                for name, _ in found:
                    print(f"  without {name:70s} {', '.join(figures[name])}", flush=True)
            finally:
                store.close()
