"""Evidence ingestion over HTTP as history grows: ``POST /v1/evidence`` to ``trustprobe serve``.

For SQLite and PostgreSQL (127.0.0.1:5432, database ``test``, a throw-away schema each), and for
two versions of trustprobe in the same run:

* ``totals``: this tree, which rescores an agent from its running totals;
* ``full recompute`` (the baseline): the source tree of the commit before the totals existed
  (``git archive``, put first on ``PYTHONPATH``), which rescores every touched agent from its
  whole history. ``TRUSTPROBE_BENCH_BEFORE=COMMIT`` names another commit.

Each version has its own database. Its history is grown in a child process running that version
(``ingest_evidence`` in batches of 50,000: the CLI's ``trust record`` path), then
``trustprobe serve`` of that version starts on 127.0.0.1 and one HTTP client posts batches of
``BATCH`` records (pre-encoded JSON bodies, one keep-alive connection) about ``AGENTS`` agents
that all have history; the rate is records per second of wall time, after one warm-up batch.
History is observed within the last five days (before decay starts: see docs/store.md for what
older history costs); ``TRUSTPROBE_BENCH_AGED=1`` observes it 30–60 days ago instead,
``TRUSTPROBE_BENCH_AGED=spread`` from now to 180 days ago.

``python -m benchmarks service_ingest``; ``TRUSTPROBE_BENCH_HISTORY`` takes the history sizes
(default ``0,100000,1000000``), ``TRUSTPROBE_BENCH_BACKENDS`` the backends (``sqlite,postgresql``),
``TRUSTPROBE_BENCH_BEFORE=none`` leaves the baseline out. ``TRUSTPROBE_BENCH_BULK_AGENTS=N``
grows the history about N agents (of which the measured batches touch the first ``AGENTS``)
by appending rows and totals straight to the tables, without rescoring (:func:`bulk_fill`):
the way to reach millions of rows in minutes.
"""

from __future__ import annotations

import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

from benchmarks.postgres import create_schema, drop_schemas
from benchmarks.raw_http import wait_until_serving

ROOT = Path(__file__).resolve().parents[1]
AGENTS = 200
BATCH = 5_000
FILL_BATCH = 50_000
BULK_BATCH = 200_000
MEASURE_SECONDS = 20.0
MEASURE_BATCHES = 8
TARGET_RECORDS_PER_SECOND = 20_000
ORGANISATION = "bench"
DIMENSIONS = ("accuracy", "safety", "security", "reliability", "scopeHonesty", "selfAudit")
TOTALS_MIGRATION = "src/trustprobe/store/migrations/versions/0004_score_totals.py"


AGES = {"0": (0, 5 * 86_400), "1": (30 * 86_400, 60 * 86_400), "spread": (0, 180 * 86_400)}
"""History ages in seconds by ``TRUSTPROBE_BENCH_AGED``: within the grace, past it, or both."""


def records(
    count: int, prefix: str, now: datetime, *, aged: str, seed: int, agents: int = AGENTS
) -> list[dict[str, Any]]:
    """``count`` eval records spread over ``agents`` and six dimensions, ids never repeated."""
    rng = random.Random(seed)
    low, high = AGES[aged]
    out = []
    for i in range(count):
        observed = now - timedelta(seconds=rng.uniform(low, high)) if prefix == "h" else now
        record: dict[str, Any] = {
            "id": f"{prefix}{seed}-{i}",
            "agent_id": f"agent-{rng.randrange(agents):03d}",
            "dimension": DIMENSIONS[rng.randrange(len(DIMENSIONS))],
            "kind": "eval",
            "observed_at": observed.isoformat(),
        }
        if i % 3 == 0:
            total = rng.randint(10, 200)
            record |= {"passed": rng.randint(0, total), "total": total}
        else:
            record["score"] = round(rng.uniform(0, 100), 2)
        out.append(record)
    return out


def fill(url: str, start: int, stop: int, now_text: str, aged: str) -> None:
    """Child process: grow the history with the version first on ``PYTHONPATH``."""
    from trustprobe.store import EvidenceSource, ingest_evidence, open_store
    from trustprobe.trust import parse_evidence

    now = datetime.fromisoformat(now_text)
    store = open_store(url, upgrade=True)
    try:
        for first in range(start, stop, FILL_BATCH):
            size = min(FILL_BATCH, stop - first)
            batch = [parse_evidence(r) for r in records(size, "h", now, aged=aged, seed=first)]
            ingest_evidence(
                store, batch, organisation=ORGANISATION, now=now, source=EvidenceSource.CLI
            )
    finally:
        store.close()


def bulk_fill(url: str, start: int, stop: int, now_text: str, aged: str, agents: int) -> None:
    """Child process: append history rows straight to the tables, without rescoring.

    The rows go through the store's own chain append (hashes, COPY or executemany) and their
    running totals are updated in the same transaction, as an ingestion does; only the score
    transitions are left out (each agent gets one at its first measured batch). For histories
    of millions of rows, where ingesting them would take hours on this machine.
    """
    from collections import defaultdict

    from trustprobe.formats import sha256_hex
    from trustprobe.store import EvidenceSource, open_store
    from trustprobe.store.database import write_transaction
    from trustprobe.store.evidence import (
        _append_evidence,
        _Prepared,
        ensure_agents,
        lock_organisation,
    )
    from trustprobe.store.totals import add_records, config_key, load_totals, save_totals
    from trustprobe.trust import TrustConfig, evidence_canonical_json, parse_evidence

    now = datetime.fromisoformat(now_text)
    store = open_store(url, upgrade=True)
    config = TrustConfig()
    key = config_key(config)
    try:
        for first in range(start, stop, BULK_BATCH):
            size = min(BULK_BATCH, stop - first)
            batch = [
                parse_evidence(r)
                for r in records(size, "h", now, aged=aged, seed=first, agents=agents)
            ]
            prepared = []
            for number, record in enumerate(batch):
                content = evidence_canonical_json(record)
                prepared.append(_Prepared(number, record, content, sha256_hex(content)))
            with write_transaction(store.engine) as connection:
                organisation_id = lock_organisation(connection, ORGANISATION, now=now)
                pks = ensure_agents(
                    connection, organisation_id, sorted({r.agent_id for r in batch}), now=now
                )
                _, last_seq = _append_evidence(
                    connection, organisation_id, pks, prepared, now=now,
                    source=EvidenceSource.CLI, probe_run_id=None,
                )  # fmt: skip
                by_agent = defaultdict(list)
                for record in batch:
                    by_agent[pks[record.agent_id]].append(record)
                totals, stale = load_totals(connection, list(by_agent), key=key)
                assert not stale
                for pk, mine in by_agent.items():
                    add_records(totals.setdefault(pk, {}), mine, config, evidence_seq=last_seq)
                save_totals(connection, organisation_id, totals, key=key)
            print(f"bulk {first + size:,d} rows", file=sys.stderr, flush=True)
    finally:
        store.close()


def api_key(url: str, now_text: str) -> None:
    """Child process: print a write key for the organisation (made by that version)."""
    from trustprobe.store import Scope, create_api_key, open_store

    store = open_store(url, upgrade=True)
    try:
        created = create_api_key(
            store,
            organisation=ORGANISATION,
            scopes=frozenset({Scope.WRITE}),
            now=datetime.fromisoformat(now_text),
        )
        print(created.key)
    finally:
        store.close()


@dataclass
class Version:
    """One version of trustprobe: a name, its source tree (``None``: this one) and database."""

    name: str
    source: Path | None
    url: str
    history: int = 0

    def env(self) -> dict[str, str]:
        path = str(self.source) if self.source is not None else str(ROOT / "src")
        return {**os.environ, "PYTHONPATH": f"{path}{os.pathsep}{ROOT}"}

    def child(self, *args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "benchmarks.bench_service_ingest", *args],
            env=self.env(),
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(f"{self.name}: {' '.join(args[:1])} failed:\n{done.stderr}")
        return done.stdout


def source_tree(commit: str, directory: Path) -> Path:
    """The ``src`` directory of ``commit``, extracted under ``directory``."""
    target = directory / f"src-{commit[:12]}"
    target.mkdir()
    archive = subprocess.run(
        ["git", "archive", commit, "src"], cwd=ROOT, capture_output=True, check=True
    )
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive.stdout, check=True)
    return target / "src"


def baseline_commit() -> str | None:
    """``TRUSTPROBE_BENCH_BEFORE``, else the parent of the commit that added the totals."""
    chosen = os.environ.get("TRUSTPROBE_BENCH_BEFORE")
    if chosen == "none":
        return None
    if chosen:
        return chosen
    added = subprocess.run(
        ["git", "log", "--diff-filter=A", "--format=%H", "--", TOTALS_MIGRATION],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    ).stdout.split()
    return f"{added[-1]}^" if added else None


def measure(version: Version, now: datetime, key: str) -> tuple[int, float, float]:
    """Serve ``version`` and post batches; returns (records, wall seconds, server CPU seconds)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "trustprobe", "serve", "--port", str(port),
         "--database-url", version.url, "--rate-limit", "100000", "--rate-burst", "100000",
         "--max-body-bytes", str(8 * 1024 * 1024)],
        env=version.env(), cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
    try:
        wait_until_serving(f"{base}/openapi.json", server, f"{version.name}: trustprobe serve")
        seed = version.history + 7
        bodies = [
            json.dumps(records(BATCH, "m", now, aged="0", seed=seed * 1000 + i)).encode()
            for i in range(MEASURE_BATCHES + 1)
        ]
        with httpx.Client(base_url=base, headers=headers, timeout=600) as client:
            client.post("/v1/evidence", content=bodies[0]).raise_for_status()  # warm-up
            cpu_before = _cpu_seconds(server.pid)
            started = time.perf_counter()
            sent = 0
            for body in bodies[1:]:
                response = client.post("/v1/evidence", content=body)
                response.raise_for_status()
                assert response.json()["accepted"] == BATCH
                sent += BATCH
                if time.perf_counter() - started > MEASURE_SECONDS:
                    break
            wall = time.perf_counter() - started
            cpu = _cpu_seconds(server.pid) - cpu_before
        version.history += sent + BATCH
        return sent, wall, cpu
    finally:
        server.terminate()
        server.wait(timeout=30)


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_backend(backend: str, sizes: list[int], baseline: Path | None, work: Path) -> None:
    now = datetime.now(UTC).replace(microsecond=0)
    aged = os.environ.get("TRUSTPROBE_BENCH_AGED") or "0"
    bulk_agents = int(os.environ.get("TRUSTPROBE_BENCH_BULK_AGENTS") or 0)
    schemas: list[str] = []
    versions = []
    for name, source in (("totals", None), ("full recompute", baseline)):
        if name == "full recompute" and baseline is None:
            continue
        if backend == "sqlite":
            url = f"sqlite:///{work / (name.replace(' ', '-') + '.db')}"
        else:
            found = create_schema()
            if found is None:
                return
            url, schema = found
            schemas.append(schema)
        versions.append(Version(name, source, url))
    try:
        keys = {v.name: v.child("key", v.url, now.isoformat()).strip() for v in versions}
        for size in sizes:
            for version in versions:
                if version.history < size:
                    started = time.perf_counter()
                    if bulk_agents:
                        version.child(
                            "bulk", version.url, str(version.history), str(size),
                            now.isoformat(), aged, str(bulk_agents),
                        )  # fmt: skip
                    else:
                        version.child(
                            "fill", version.url, str(version.history), str(size),
                            now.isoformat(), aged,
                        )  # fmt: skip
                    print(
                        f"{backend:10s} {version.name:15s} history grown to {size:,d} in"
                        f" {time.perf_counter() - started:.0f} s",
                        flush=True,
                    )
                    version.history = size
            rates = {}
            for version in versions:
                history = version.history
                sent, wall, cpu = measure(version, now, keys[version.name])
                rates[version.name] = sent / wall
                print(
                    f"{backend:10s} {version.name:15s} history {history:9,d}: {sent:6,d} records"
                    f" in {wall:6.2f} s = {sent / wall:9,.0f} records/s;"
                    f" server CPU {cpu / sent * 1e6:6.1f} µs/record",
                    flush=True,
                )
            if "full recompute" in rates:
                ratio = rates["totals"] / rates["full recompute"]
                print(f"{'':10s} totals / full recompute: {ratio:.1f}x", flush=True)
    finally:
        if schemas:
            drop_schemas(schemas)


def main() -> None:
    sizes = [
        int(s) for s in os.environ.get("TRUSTPROBE_BENCH_HISTORY", "0,100000,1000000").split(",")
    ]
    backends = os.environ.get("TRUSTPROBE_BENCH_BACKENDS", "sqlite,postgresql").split(",")
    load1, load5, _ = os.getloadavg()
    print(
        f"POST /v1/evidence, batches of {BATCH} records about {AGENTS} agents; "
        f"{os.cpu_count()} cores, load average {load1:.1f} / {load5:.1f} (1 / 5 min); "
        f"target {TARGET_RECORDS_PER_SECOND:,} records/s"
    )
    with tempfile.TemporaryDirectory() as directory:
        work = Path(directory)
        commit = baseline_commit()
        baseline = None if commit is None else source_tree(commit, work)
        if baseline is None:
            print("no baseline: set TRUSTPROBE_BENCH_BEFORE to a commit")
        for backend in backends:
            run_backend(backend, sizes, baseline, work)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "fill":
        fill(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6])
    elif len(sys.argv) > 1 and sys.argv[1] == "bulk":
        bulk_fill(
            sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6],
            int(sys.argv[7]),
        )  # fmt: skip
    elif len(sys.argv) > 1 and sys.argv[1] == "key":
        api_key(sys.argv[2], sys.argv[3])
    else:
        main()
