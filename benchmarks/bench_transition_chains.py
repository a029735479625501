"""Ingestion as score transitions accumulate: many small batches about the same agents.

Every batch appends one transition per touched agent, so an agent written to by a platform every
few seconds collects thousands of them. Before its next transition, an ingestion reads the head
of the agent's score chain and its latest canonical transition (``chain_bases``); this measures
that read, and the whole batch, over the first and the last ``WINDOW`` of ``BATCHES`` batches of
``RECORDS`` records about ``AGENTS`` agents, in process (``ingest_evidence``).

``python -m benchmarks transition_chains``; ``TRUSTPROBE_BENCH_BACKENDS`` picks the databases
(``sqlite,postgresql``; PostgreSQL at 127.0.0.1:5432, database ``test``, a throw-away schema),
``TRUSTPROBE_BENCH_BATCHES`` the number of batches (default 300), ``TRUSTPROBE_BENCH_THRESHOLD``
the store's anomaly threshold (default the store's; 0 holds every changed score for review, so
each batch opens a review per agent and supersedes the previous batch's).
"""

from __future__ import annotations

import os
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from benchmarks.bench_service_ingest import records
from benchmarks.postgres import create_schema, drop_schemas

BATCHES = 300
RECORDS = 500
AGENTS = 50
WINDOW = 20


def run(url: str, batches: int, threshold: int | None) -> tuple[list[float], list[float]]:
    """Seconds of ``chain_bases`` and of the whole ingestion, per batch."""
    import trustprobe.store.evidence as evidence
    from trustprobe.store import EvidenceSource, ingest_evidence, open_store
    from trustprobe.trust import parse_evidence

    bases: list[float] = []
    original = evidence.chain_bases

    def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            bases.append(time.perf_counter() - started)

    evidence.chain_bases = timed
    now = datetime.now(UTC).replace(microsecond=0)
    store = (
        open_store(url, upgrade=True)
        if threshold is None
        else open_store(url, upgrade=True, anomaly_threshold=threshold)
    )
    whole: list[float] = []
    try:
        for number in range(batches):
            batch = [
                parse_evidence(r)
                for r in records(RECORDS, "m", now, aged="0", seed=number, agents=AGENTS)
            ]
            started = time.perf_counter()
            ingest_evidence(store, batch, organisation="bench", now=now, source=EvidenceSource.API)
            whole.append(time.perf_counter() - started)
    finally:
        evidence.chain_bases = original
        store.close()
    return bases, whole


def _mean_ms(values: list[float]) -> float:
    return sum(values) / len(values) * 1e3


def main() -> None:
    batches = int(os.environ.get("TRUSTPROBE_BENCH_BATCHES") or BATCHES)
    threshold_text = os.environ.get("TRUSTPROBE_BENCH_THRESHOLD")
    threshold = None if not threshold_text else int(threshold_text)
    backends = os.environ.get("TRUSTPROBE_BENCH_BACKENDS", "sqlite,postgresql").split(",")
    print(
        f"{batches} batches of {RECORDS} records about {AGENTS} agents, in process; "
        f"means over batches 3-{WINDOW + 2} and the last {WINDOW}"
        + ("" if threshold is None else f"; anomaly threshold {threshold}")
    )
    for backend in backends:
        with tempfile.TemporaryDirectory() as directory:
            schema = None
            if backend == "sqlite":
                url = f"sqlite:///{Path(directory) / 'chains.db'}"
            else:
                found = create_schema()
                if found is None:
                    continue
                url, schema = found
            try:
                bases, whole = run(url, batches, threshold)
            finally:
                if schema is not None:
                    drop_schemas([schema])
        first = slice(2, WINDOW + 2)
        last = slice(-WINDOW, None)
        print(
            f"{backend:10s} chain bases {_mean_ms(bases[first]):6.2f} -> "
            f"{_mean_ms(bases[last]):6.2f} ms a batch; whole batch {_mean_ms(whole[first]):6.1f}"
            f" -> {_mean_ms(whole[last]):6.1f} ms",
            flush=True,
        )


if __name__ == "__main__":
    main()
