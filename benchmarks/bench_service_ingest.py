"""Evidence ingestion over HTTP as history grows: ``POST /v1/evidence`` to ``trustprobe serve``.

For SQLite and PostgreSQL (127.0.0.1:5432, database ``test``, a throw-away schema each), and for
two versions of trustprobe in the same run:

* ``totals``: this tree, which rescores an agent from its running totals;
* ``full recompute`` (the baseline): the source tree of the commit before the totals existed
  (``git archive``, put first on ``PYTHONPATH``), which rescores every touched agent from its
  whole history. ``TRUSTPROBE_BENCH_BEFORE=COMMIT`` names another commit (its rows are then
  labelled by that commit). That default predates ``serve --workers`` (de9a70d): with
  ``TRUSTPROBE_BENCH_WORKERS`` above 1 the run stops before growing any history and says so;
  name a later commit. A server that does not start is reported with the end of its stderr.

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

Millions of rows take minutes to seed even in bulk (about 45 µs a row on this machine), so a
history can be seeded once and measured many times: ``python -m benchmarks.bench_service_ingest
bulk URL 0 ROWS NOW AGED AGENTS`` seeds it (:func:`bulk_fill`; ``AGED`` as above, ``NOW`` an ISO
time), and ``TRUSTPROBE_BENCH_DATABASE=URL`` then measures on that database, as it is, every
version in turn (``TRUSTPROBE_BENCH_ROUNDS`` rounds, default 1, each version once a round): the
backend is the URL's, ``TRUSTPROBE_BENCH_HISTORY`` and the backends are ignored, the history is
the rows found in it, and nothing is dropped afterwards. All versions must share its schema
revision. The rows a measurement adds (a few tens of thousands) stay.

A platform's load is several organisations at once: ``TRUSTPROBE_BENCH_CLIENTS=N`` (default 1)
posts from N clients in parallel, each for an organisation of its own (the first is the one
with the history), ``TRUSTPROBE_BENCH_WORKERS=W`` serves with ``--workers W``,
``TRUSTPROBE_BENCH_BATCH`` and ``TRUSTPROBE_BENCH_AGENTS`` set each batch's records and agents
(default 5,000 and 200). Besides the server's CPU per record (all its worker processes), the
line gives the PostgreSQL backends' CPU and the load generator's own, read from ``/proc``.
"""

from __future__ import annotations

import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

from benchmarks.postgres import POSTGRES, create_schema, drop_schemas
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

    from trustprobe.store import EvidenceSource, open_store
    from trustprobe.store.database import write_transaction
    from trustprobe.store.evidence import _append_evidence, ensure_agents, lock_organisation
    from trustprobe.store.totals import add_records, config_key, load_totals, save_totals
    from trustprobe.trust import TrustConfig, parse_evidence

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
            prepared = _prepared(store, batch, now)
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
        if store.engine.dialect.name == "postgresql":
            vacuum(store.engine)
    finally:
        store.close()


def vacuum(engine: Any) -> None:
    """Compact the tables a bulk fill rewrote and ``ANALYZE`` them, leaving no bulk-only bloat.

    Each bulk transaction rewrites every agent's totals row (and agent row), leaving a dead
    copy of each: tens of thousands of pages for rows that fit in a few hundred, which every
    later ingestion's read of the totals would scan, and which vacuum alone frees but does not
    give back (docs/benchmarks.md, "Ten million rows of history"). Both tables are small, so
    ``VACUUM FULL`` rewrites them in moments; the evidence is insert-only.
    """
    with engine.connect() as connection:
        connection = connection.execution_options(isolation_level="AUTOCOMMIT")
        for statement in (
            "VACUUM FULL ANALYZE score_totals", "VACUUM FULL ANALYZE agents",
            "VACUUM ANALYZE evidence",
        ):  # fmt: skip
            connection.exec_driver_sql(statement)


def _prepared(store: Any, batch: list[Any], now: datetime) -> list[Any]:
    """The records as the version on ``PYTHONPATH`` hands them to ``_append_evidence``."""
    from trustprobe.store import evidence

    if hasattr(evidence, "prepare_batch"):
        return list(evidence.prepare_batch(store, batch, now=now).items)
    # Versions before prepare_batch (0119e76 and older): position, record, content, digest.
    from trustprobe.formats import sha256_hex
    from trustprobe.trust import evidence_canonical_json

    contents = [evidence_canonical_json(record) for record in batch]
    return [
        evidence._Prepared(number, record, content, sha256_hex(content))
        for number, (record, content) in enumerate(zip(batch, contents, strict=True))
    ]


def api_key(url: str, now_text: str, organisation: str = ORGANISATION) -> None:
    """Child process: print a write key for ``organisation`` (made by that version)."""
    from trustprobe.store import Scope, create_api_key, open_store

    store = open_store(url, upgrade=True)
    try:
        created = create_api_key(
            store,
            organisation=organisation,
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


@dataclass(frozen=True)
class Load:
    """The measured load: parallel clients (one organisation each), worker processes, batches."""

    clients: int = 1
    workers: int = 1
    batch: int = BATCH
    agents: int = AGENTS

    @classmethod
    def from_environment(cls) -> Load:
        """The load the ``TRUSTPROBE_BENCH_*`` variables ask for."""
        return cls(
            clients=int(os.environ.get("TRUSTPROBE_BENCH_CLIENTS") or 1),
            workers=int(os.environ.get("TRUSTPROBE_BENCH_WORKERS") or 1),
            batch=int(os.environ.get("TRUSTPROBE_BENCH_BATCH") or BATCH),
            agents=int(os.environ.get("TRUSTPROBE_BENCH_AGENTS") or AGENTS),
        )

    def organisations(self) -> list[str]:
        """The clients' organisations, the first being the one with the history."""
        return [ORGANISATION, *(f"{ORGANISATION}-{i}" for i in range(1, self.clients))]


@dataclass
class Measured:
    """Records posted, wall seconds, and CPU seconds of the server, database and client."""

    records: int
    wall: float
    server_cpu: float
    database_cpu: float | None
    client_cpu: float

    def line(self) -> str:
        """Records, wall time, rate, and CPU a record of the server (and database)."""
        database = (
            ""
            if self.database_cpu is None
            else f", database {self.database_cpu / self.records * 1e6:5.1f}"
        )
        return (
            f"{self.records:6,d} records in {self.wall:6.2f} s = "
            f"{self.records / self.wall:9,.0f} records/s; server CPU "
            f"{self.server_cpu / self.records * 1e6:6.1f} µs/record{database}"
        )


def serve_command(version: Version, port: int, load: Load) -> list[str]:
    """``trustprobe serve`` for ``version``; ``--workers`` only when more than one is asked for
    (versions before it was added serve one process)."""
    command = [
        sys.executable, "-m", "trustprobe", "serve", "--port", str(port),
        "--database-url", version.url, "--rate-limit", "100000", "--rate-burst", "100000",
        "--max-body-bytes", str(8 * 1024 * 1024),
    ]  # fmt: skip
    return command if load.workers == 1 else [*command, "--workers", str(load.workers)]


def ready_versions(versions: list[Version], load: Load, now: datetime) -> dict[str, dict[str, str]]:
    """Check every version serves ``load``; each version's API key for each organisation."""
    for version in versions:
        check_serves(version, load)
    return {
        v.name: {
            organisation: v.child("key", v.url, now.isoformat(), organisation).strip()
            for organisation in load.organisations()
        }
        for v in versions
    }


def check_serves(version: Version, load: Load) -> None:
    """Fail at once, saying why, if ``version``'s ``trustprobe serve`` cannot take ``load``."""
    if load.workers == 1:
        return
    shown = subprocess.run(
        [sys.executable, "-m", "trustprobe", "serve", "--help"],
        env=version.env(), cwd=ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    if "--workers" not in shown.stdout:
        raise RuntimeError(
            f"{version.name} ({version.source}): its `trustprobe serve` has no --workers; "
            "measure with TRUSTPROBE_BENCH_WORKERS=1 or set TRUSTPROBE_BENCH_BEFORE to a commit "
            "that has it (de9a70d or later)"
        )


def measure(version: Version, now: datetime, keys: dict[str, str], load: Load) -> Measured:
    """Serve ``version`` and post batches from ``load.clients`` clients at once."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    descriptor, path = tempfile.mkstemp(prefix="trustprobe-serve-", suffix=".log")
    os.close(descriptor)  # reopened below as the server's stderr
    log = Path(path)
    with log.open("wb") as stderr:
        server = subprocess.Popen(
            serve_command(version, port, load), env=version.env(), cwd=ROOT,
            stdout=subprocess.DEVNULL, stderr=stderr,
        )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    batches = max(1, MEASURE_BATCHES * BATCH // load.batch)
    try:
        wait_until_serving(f"{base}/openapi.json", server, f"{version.name}: trustprobe serve", log)
        seed = version.history + 7
        bodies = {
            organisation: [
                json.dumps(
                    records(
                        load.batch, "m", now, aged="0", seed=(seed * 100 + c) * 1000 + i,
                        agents=load.agents,
                    )
                ).encode()
                for i in range(batches + 1)
            ]
            for c, organisation in enumerate(load.organisations())
        }  # fmt: skip
        clients = {
            organisation: httpx.Client(
                base_url=base,
                headers={
                    "Authorization": f"Bearer {keys[organisation]}",
                    "Content-Type": "application/json",
                },
                timeout=600,
            )
            for organisation in load.organisations()
        }
        for organisation, client in clients.items():  # warm-up: every worker, every agent
            for _ in range(load.workers):
                client.post("/v1/evidence", content=bodies[organisation][0]).raise_for_status()
        sent = [0] * load.clients
        errors: list[BaseException] = []
        start = threading.Barrier(load.clients + 1)

        def post_all(number: int, organisation: str) -> None:
            try:
                start.wait()
                began = time.perf_counter()
                for body in bodies[organisation][1:]:
                    response = clients[organisation].post("/v1/evidence", content=body)
                    response.raise_for_status()
                    assert response.json()["accepted"] == load.batch
                    sent[number] += load.batch
                    if time.perf_counter() - began > MEASURE_SECONDS:
                        break
            except BaseException as exc:  # reported by the main thread
                errors.append(exc)

        threads = [
            threading.Thread(target=post_all, args=(number, organisation))
            for number, organisation in enumerate(load.organisations())
        ]
        for thread in threads:
            thread.start()
        database_before = _database_cpu(version.url)
        server_before = _tree_cpu_seconds(server.pid)
        client_before = time.process_time()
        start.wait()
        started = time.perf_counter()
        for thread in threads:
            thread.join()
        wall = time.perf_counter() - started
        client_cpu = time.process_time() - client_before
        server_cpu = _tree_cpu_seconds(server.pid) - server_before
        database_cpu = None
        if database_before is not None:
            # A backend started during the measurement counts whole.
            after = _database_cpu(version.url) or {}
            database_cpu = sum(cpu - database_before.get(pid, 0.0) for pid, cpu in after.items())
        for client in clients.values():
            client.close()
        if errors:
            raise errors[0]
        version.history += sent[0] + load.batch
        return Measured(sum(sent), wall, server_cpu, database_cpu, client_cpu)
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.unlink()


def stored_history(url: str) -> int:
    """The evidence rows in the database at ``url`` (the highest seq: rows are never deleted)."""
    from sqlalchemy import create_engine, text

    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            return int(connection.execute(text("SELECT max(seq) FROM evidence")).scalar() or 0)
    finally:
        engine.dispose()


def _database_cpu(url: str) -> dict[int, float] | None:
    """CPU seconds of each PostgreSQL backend connected with ``url`` (``None``: SQLite)."""
    if not url.startswith("postgresql"):
        return None
    from sqlalchemy import create_engine, text

    name = url.rsplit("application_name=", 1)[1].split("&", 1)[0]
    engine = create_engine(POSTGRES)
    try:
        with engine.connect() as connection:
            pids = connection.execute(
                text("SELECT pid FROM pg_stat_activity WHERE application_name = :name"),
                {"name": name},
            ).scalars()
            return {pid: _cpu_seconds(pid) for pid in pids if Path(f"/proc/{pid}").exists()}
    finally:
        engine.dispose()


def _tree_cpu_seconds(pid: int) -> float:
    """CPU of ``pid`` and of its child processes (the workers of ``serve --workers``)."""
    total = _cpu_seconds(pid)
    children = Path(f"/proc/{pid}/task/{pid}/children")
    for child in children.read_text().split() if children.exists() else ():
        total += _tree_cpu_seconds(int(child))
    return total


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_backend(
    backend: str, sizes: list[int], baseline: tuple[str, Path] | None, work: Path
) -> None:
    """Measure this tree and ``baseline`` (its row name and source tree) on ``backend``."""
    now = datetime.now(UTC).replace(microsecond=0)
    aged = os.environ.get("TRUSTPROBE_BENCH_AGED") or "0"
    bulk_agents = int(os.environ.get("TRUSTPROBE_BENCH_BULK_AGENTS") or 0)
    schemas: list[str] = []
    versions = []
    for role, (name, source) in enumerate((("totals", None), *([baseline] if baseline else []))):
        if backend == "sqlite":
            # Named by role: a baseline's name is a commit as given, which may hold a '/'.
            url = f"sqlite:///{work / f'version-{role}.db'}"
        else:
            found = create_schema()
            if found is None:
                return
            url, schema = found
            url += f"&application_name={schema}"  # finds its backends (_database_cpu)
            schemas.append(schema)
        versions.append(Version(name, source, url))
    try:
        load = Load.from_environment()
        keys = ready_versions(versions, load, now)
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
                got = measure(version, now, keys[version.name], load)
                rates[version.name] = got.records / got.wall
                print(
                    f"{backend:10s} {version.name:15s} history {history:9,d}: {got.line()}, "
                    f"client {got.client_cpu / got.records * 1e6:4.1f}",
                    flush=True,
                )
            if baseline is not None:
                ratio = rates["totals"] / rates[baseline[0]]
                print(f"{'':10s} totals / {baseline[0]}: {ratio:.1f}x", flush=True)
    finally:
        if schemas:
            drop_schemas(schemas)


def run_seeded(url: str, baseline: tuple[str, Path] | None, rounds: int) -> None:
    """Measure this tree and ``baseline`` in turn, ``rounds`` times, on the database at ``url``."""
    now = datetime.now(UTC).replace(microsecond=0)
    backend = "postgresql" if url.startswith("postgresql") else "sqlite"
    if backend == "postgresql":  # finds its backends (_database_cpu)
        url += f"{'&' if '?' in url else '?'}application_name=tp_bench_seeded"
    versions = [
        Version(name, source, url)
        for name, source in (("totals", None), *([baseline] if baseline else []))
    ]
    load = Load.from_environment()
    keys = ready_versions(versions, load, now)
    for number in range(1, rounds + 1):
        for version in versions:
            # The database is shared: its ids go on from what the other versions stored.
            history = version.history = stored_history(url)
            got = measure(version, now, keys[version.name], load)
            print(
                f"{backend:10s} {version.name:15s} round {number} history "
                f"{history:11,d}: {got.line()}, load {os.getloadavg()[0]:.1f}",
                flush=True,
            )


def main() -> None:
    sizes = [
        int(s) for s in os.environ.get("TRUSTPROBE_BENCH_HISTORY", "0,100000,1000000").split(",")
    ]
    backends = os.environ.get("TRUSTPROBE_BENCH_BACKENDS", "sqlite,postgresql").split(",")
    load1, load5, _ = os.getloadavg()
    load = Load.from_environment()
    print(
        f"POST /v1/evidence, batches of {load.batch} records about {load.agents} agents from "
        f"{load.clients} client(s), one organisation each, to {load.workers} worker(s); "
        f"{os.cpu_count()} cores, load average {load1:.1f} / {load5:.1f} (1 / 5 min); "
        f"target {TARGET_RECORDS_PER_SECOND:,} records/s"
    )
    with tempfile.TemporaryDirectory() as directory:
        work = Path(directory)
        commit = baseline_commit()
        tree = None if commit is None else source_tree(commit, work)
        if tree is None:
            print("no baseline: set TRUSTPROBE_BENCH_BEFORE to a commit")
        # Named by its commit when one is chosen; the default is the version before the totals.
        name = commit if os.environ.get("TRUSTPROBE_BENCH_BEFORE") else "full recompute"
        baseline = None if tree is None else (str(name), tree)
        seeded = os.environ.get("TRUSTPROBE_BENCH_DATABASE")
        if seeded:
            run_seeded(seeded, baseline, int(os.environ.get("TRUSTPROBE_BENCH_ROUNDS") or 1))
            return
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
        api_key(sys.argv[2], sys.argv[3], *sys.argv[4:5])
    else:
        main()
