"""PostgreSQL: the stored-digest lookup for an organisation the table statistics do not know.

An organisation that wrote after the last ``ANALYZE`` is estimated at one row. The lookup as it
was (``EARLIER``) was then planned through ``(organisation_id, seq)``, reading all of the
organisation's rows for each id of a batch; the store's lookup gives the organisation as an
uncorrelated subquery's value and probes the unique index. Two measurements, each form in turn
(A B, then B A):

- 5,000-record batches for two new organisations, one ingested with each form
  (``ingest_evidence``, wall seconds), and each lookup's ``EXPLAIN (ANALYZE, BUFFERS)`` before
  its batch (ids all new; the organisation holds the batches before);
- the organisation the statistics know that has the most rows: 2,500 of its ids and 2,500 new
  ones, ``TRUSTPROBE_BENCH_ROUNDS`` rounds (default 11) of ten lookups each, the server
  backend's CPU and the buffers of each form.

``TRUSTPROBE_BENCH_DATABASE=URL`` measures on that database as it is (the new organisations
stay in it: use a copy); otherwise a throw-away schema gets ``TRUSTPROBE_BENCH_HISTORY`` rows
(default 200,000) for one organisation, analysed. ``TRUSTPROBE_BENCH_BATCHES``: batches per new
organisation (default 3).
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import text
from sqlalchemy.engine import Connection

from benchmarks.bench_service_ingest import BATCH, _cpu_seconds, bulk_fill, records
from benchmarks.postgres import throwaway_database

EARLIER = (
    "SELECT e.evidence_id, e.content_sha256 "
    "FROM unnest(%b::varchar[]) AS wanted(id) "
    "CROSS JOIN LATERAL (SELECT evidence_id, content_sha256 FROM evidence "
    "WHERE organisation_id = %s AND evidence_id = wanted.id OFFSET 0) AS e"
)
"""The lookup before the organisation was given as a subquery's value."""
REPEATS = 10
"""Lookups a round: the backend's CPU is read in clock ticks (10 ms)."""


def _forms() -> list[tuple[str, str]]:
    from trustprobe.store import evidence

    return [("store", evidence._PG_DIGESTS), ("earlier", EARLIER)]


def _indexes(plan: dict[str, Any]) -> list[str]:
    found = [plan["Index Name"]] if "Index Name" in plan else []
    for child in plan.get("Plans", []):
        found.extend(_indexes(child))
    return found


def _explain(connection: Connection, query: str, ids: list[str], organisation_id: int) -> str:
    """The lookup's execution time, buffers and indexes, in words."""
    connection.exec_driver_sql("SET LOCAL jit = off")
    result = connection.exec_driver_sql(
        "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + query, (sorted(ids), organisation_id)
    ).scalar_one()[0]
    plan = result["Plan"]
    buffers = plan.get("Shared Hit Blocks", 0) + plan.get("Shared Read Blocks", 0)
    names = ",".join(sorted(set(_indexes(plan))))
    return f"{result['Execution Time']:.1f} ms, {buffers:,d} buffers, {names}"


def _organisation_id(connection: Connection, name: str) -> int:
    found = connection.execute(text("SELECT id FROM organisations WHERE name = :n"), {"n": name})
    return int(found.scalar_one())


def new_organisations(url: str, batches: int) -> None:
    from trustprobe.store import EvidenceSource, ingest_evidence, open_store
    from trustprobe.store import evidence as evidence_module
    from trustprobe.trust import parse_evidence

    store = open_store(url)
    tag = uuid.uuid4().hex[:6]
    now = datetime.now(UTC).replace(microsecond=0)
    try:
        for number in range(batches):
            forms = _forms() if number % 2 == 0 else _forms()[::-1]
            for name, query in forms:
                organisation = f"stale-{tag}-{name}"
                batch = [
                    parse_evidence(record)
                    for record in records(
                        BATCH, f"{organisation}-{number}-", now, aged="0", seed=number
                    )
                ]
                lookup = "no rows yet"
                if number:
                    with store.engine.begin() as connection:
                        organisation_id = _organisation_id(connection, organisation)
                        ids = [item.id for item in batch]
                        lookup = _explain(connection, query, ids, organisation_id)
                stored = evidence_module._PG_DIGESTS
                evidence_module._PG_DIGESTS = query
                try:
                    start = time.perf_counter()
                    ingest_evidence(
                        store,
                        batch,
                        organisation=organisation,
                        now=now + timedelta(seconds=number),
                        source=EvidenceSource.API,
                    )
                    wall = time.perf_counter() - start
                finally:
                    evidence_module._PG_DIGESTS = stored
                print(
                    f"new organisation, batch {number + 1} ({number * BATCH:,d} rows stored), "
                    f"{name}: {wall:.3f} s; lookup {lookup}; "
                    f"load average {os.getloadavg()[0]:.1f}",
                    flush=True,
                )
    finally:
        store.close()


def known_organisation(url: str, rounds: int) -> None:
    from trustprobe.store import open_store

    store = open_store(url)
    try:
        with store.engine.connect() as connection:
            organisation_id = connection.exec_driver_sql(
                "SELECT organisation_id FROM evidence GROUP BY 1 ORDER BY count(*) DESC LIMIT 1"
            ).scalar_one()
            stored = connection.exec_driver_sql(
                "SELECT evidence_id FROM evidence WHERE organisation_id = %s "
                "ORDER BY random() LIMIT 2500",
                (organisation_id,),
            ).scalars()
            ids = sorted({*stored, *(f"stale-new-{i}" for i in range(2500))})
            backend = connection.exec_driver_sql("SELECT pg_backend_pid()").scalar_one()
            connection.rollback()
            cpu: dict[str, list[float]] = {name: [] for name, _ in _forms()}
            for number in range(rounds):
                forms = _forms() if number % 2 == 0 else _forms()[::-1]
                for name, query in forms:
                    connection.exec_driver_sql("SET LOCAL jit = off")
                    before = _cpu_seconds(backend)
                    for _ in range(REPEATS):
                        connection.exec_driver_sql(query, (ids, organisation_id)).all()
                    cpu[name].append((_cpu_seconds(backend) - before) / REPEATS)
                    connection.rollback()
            for name, query in _forms():
                explained = _explain(connection, query, ids, organisation_id)
                connection.rollback()
                print(
                    f"organisation {organisation_id} (known to the statistics), {name}: "
                    f"backend CPU median {statistics.median(cpu[name]) * 1000:.1f} ms a lookup "
                    f"({rounds} rounds of {REPEATS}); {explained}",
                    flush=True,
                )
    finally:
        store.close()


def main() -> None:
    batches = int(os.environ.get("TRUSTPROBE_BENCH_BATCHES") or 3)
    rounds = int(os.environ.get("TRUSTPROBE_BENCH_ROUNDS") or 11)
    seeded = os.environ.get("TRUSTPROBE_BENCH_DATABASE")
    if seeded:
        new_organisations(seeded, batches)
        known_organisation(seeded, rounds)
        return
    history = int(os.environ.get("TRUSTPROBE_BENCH_HISTORY") or 200_000)
    with (
        tempfile.TemporaryDirectory() as directory,
        throwaway_database("postgresql", Path(directory), "stale") as url,
    ):
        if url is None:
            return
        now = datetime.now(UTC).replace(microsecond=0)
        bulk_fill(url, 0, history, now.isoformat(), "spread", 2000)
        from trustprobe.store import open_store

        store = open_store(url, upgrade=True)
        with store.engine.connect() as connection:
            connection.exec_driver_sql("ANALYZE evidence")
            connection.commit()
        store.close()
        new_organisations(url, batches)
        known_organisation(url, rounds)


if __name__ == "__main__":
    main()
