"""Where ``ingest_evidence``'s CPU goes, stage by stage, as the history grows.

For each size in ``TRUSTPROBE_BENCH_HISTORY`` (default ``0,1000000``) and each backend in
``TRUSTPROBE_BENCH_BACKENDS`` (``sqlite,postgresql``), the history is grown about
``TRUSTPROBE_BENCH_BULK_AGENTS`` agents (default 2,000; observed over the last 180 days, as
``bench_service_ingest``'s ``bulk_fill``), then ``ingest_evidence`` runs in this process on 8
batches of 5,000 records about 200 of those agents, after one warm-up batch. Printed per record:
the process's CPU, the PostgreSQL backend's, and the CPU spent inside each stage (the functions
in :data:`STAGES`, timed with ``time.process_time`` around each call, and its wall time, which
on PostgreSQL adds the database's work the stage waits for; no profiler).
"""

from __future__ import annotations

import importlib
import os
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from benchmarks.bench_service_ingest import BATCH, ORGANISATION, _cpu_seconds, bulk_fill, records
from benchmarks.postgres import throwaway_database

STAGES = (
    ("trustprobe.store.evidence", None, (
        "prepare_batch", "plan_ingestion", "ingest_in_transaction",
        "_stored_digests", "_evidence_rows", "_insert_rows", "chain_bases", "load_totals",
        "agent_items", "score_from_totals", "transition_rows", "write_transitions",
        "save_totals",
    )),
    ("trustprobe.store.evidence", "Rescoring", ("read", "scores", "save")),
    ("trustprobe.store.item_readings", "AgentDecay", ("push", "sums")),
)  # fmt: skip
"""(module, class or ``None``, names): the functions timed, as the ingestion looks them up.

``ingest_in_transaction`` is the CPU spent holding the organisation's lock (on SQLite the
database's write lock), its BEGIN and commit aside; ``prepare_batch`` and ``plan_ingestion``
run before it. Names a version does not have (``plan_ingestion`` before it existed) are left
out, so that ``PYTHONPATH=<older tree>/src`` times that version the same way.
"""
BATCHES = 8


def timed(spent: dict[str, float]) -> None:
    """Wrap every stage so that its CPU time adds up in ``spent``, its wall time in ``NAME~``."""
    for module_name, class_name, names in STAGES:
        owner: Any = importlib.import_module(module_name)
        if class_name is not None:
            owner = getattr(owner, class_name)
        for name in names:
            raw = owner.__dict__.get(name)
            if raw is None:
                continue
            function = raw.__func__ if isinstance(raw, classmethod) else raw

            def wrapper(
                *args: Any, _f: Callable[..., Any] = function, _n: str = name, **kw: Any
            ) -> Any:
                started, clock = time.process_time(), time.perf_counter()
                try:
                    return _f(*args, **kw)
                finally:
                    spent[_n] += time.process_time() - started
                    spent[f"{_n}~"] += time.perf_counter() - clock

            setattr(owner, name, classmethod(wrapper) if isinstance(raw, classmethod) else wrapper)


def measure(url: str, now: datetime, history: int, spent: dict[str, float]) -> str:
    """Ingest the batches; the line of figures."""
    from trustprobe.store import EvidenceSource, ingest_evidence, open_store
    from trustprobe.trust import parse_evidence

    store = open_store(url, upgrade=True)
    batches = [
        [parse_evidence(r) for r in records(BATCH, "m", now, aged="0", seed=history + i)]
        for i in range(BATCHES + 1)
    ]

    def backend_cpu() -> float:
        if not url.startswith("postgresql"):
            return 0.0
        with store.engine.connect() as connection:
            return _cpu_seconds(connection.exec_driver_sql("SELECT pg_backend_pid()").scalar_one())

    def ingest(batch: list[Any]) -> None:
        ingest_evidence(store, batch, organisation=ORGANISATION, now=now, source=EvidenceSource.API)

    try:
        ingest(batches[0])
        spent.clear()
        backend, cpu = backend_cpu(), time.process_time()
        for batch in batches[1:]:
            ingest(batch)
        cpu, backend = time.process_time() - cpu, backend_cpu() - backend
    finally:
        store.close()
    count = BATCHES * BATCH
    stages = ", ".join(
        f"{name} {seconds / count * 1e6:.1f}/{spent[f'{name}~'] / count * 1e6:.1f}"
        for name, seconds in sorted(spent.items(), key=lambda item: -item[1])
        if not name.endswith("~")
    )
    return (
        f"service {cpu / count * 1e6:.1f} µs/record, backend {backend / count * 1e6:.1f}; "
        f"stages (CPU/wall µs a record): {stages}"
    )


def main() -> None:
    sizes = [int(s) for s in os.environ.get("TRUSTPROBE_BENCH_HISTORY", "0,1000000").split(",")]
    backends = os.environ.get("TRUSTPROBE_BENCH_BACKENDS", "sqlite,postgresql").split(",")
    agents = int(os.environ.get("TRUSTPROBE_BENCH_BULK_AGENTS") or 2000)
    spent: dict[str, float] = defaultdict(float)
    timed(spent)
    now = datetime.now(UTC).replace(microsecond=0)
    print(f"ingest_evidence in process; load average {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as directory:
        for backend in backends:
            with throwaway_database(backend, Path(directory), "stages") as url:
                if url is None:
                    continue
                filled = measured = 0  # bulk history rows; rows the measurements added
                for size in sizes:
                    if size > filled:
                        bulk_fill(url, filled, size, now.isoformat(), "spread", agents)
                        filled = size
                    line = measure(url, now, filled + measured, spent)
                    print(f"{backend:10s} history {filled + measured:10,d}: {line}", flush=True)
                    measured += (BATCHES + 1) * BATCH
