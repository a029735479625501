"""``POST /v1/evidence`` in process: the request path's CPU per record and the collector's share.

The service's ASGI app is called directly (no socket, no server): body validation,
authentication, ingestion and the answer, on ``BATCHES`` batches of 5,000 records about 200
agents after one warm-up batch (``bench_service_ingest``'s records). The process's CPU per
record is printed with the time spent in garbage collections (a ``gc.callbacks`` timer), under
CPython's default thresholds and under the service's (``trustprobe.cli.collection``,
``SERVICE_THRESHOLDS``), alternated ``ROUNDS`` times, each run on a store of its own.
``TRUSTPROBE_BENCH_BACKENDS`` picks the databases (``sqlite,postgresql``),
``TRUSTPROBE_BENCH_THRESHOLDS`` the thresholds (``default,service``), ``TRUSTPROBE_BENCH_ROUNDS``
the rounds (3), ``TRUSTPROBE_BENCH_BATCHES`` the batches measured (16). Another version's request
path is measured by putting its ``src`` first on ``PYTHONPATH``.
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from benchmarks.bench_service_ingest import BATCH, ORGANISATION, records
from benchmarks.postgres import throwaway_database

BATCHES = 16
ROUNDS = 3


class CollectionTimer:
    """CPU time of this thread spent in garbage collections, and their number."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.count = 0
        self._started = 0.0

    def __call__(self, phase: str, _info: dict[str, Any]) -> None:
        if phase == "start":
            self._started = time.thread_time()
        else:
            self.seconds += time.thread_time() - self._started
            self.count += 1

    @contextmanager
    def timing(self) -> Iterator[None]:
        """Count the collections inside the block only."""
        self.seconds, self.count = 0.0, 0
        gc.callbacks.append(self)
        try:
            yield
        finally:
            gc.callbacks.remove(self)


def post(app: Any, body: bytes, key: str) -> int:
    """One ``POST /v1/evidence`` through the ASGI app; its status."""
    headers = [
        (b"authorization", f"Bearer {key}".encode()),
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
    ]
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
        "scheme": "http", "path": "/v1/evidence", "raw_path": b"/v1/evidence", "root_path": "",
        "query_string": b"", "headers": headers, "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 2),
    }  # fmt: skip
    messages = [{"type": "http.request", "body": body, "more_body": False}]
    status: list[int] = []

    async def receive() -> dict[str, Any]:
        if messages:
            return messages.pop()
        await asyncio.sleep(3600)  # the client never disconnects
        raise AssertionError("unreachable")

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            status.append(message["status"])

    asyncio.run(app(scope, receive, send))
    return status[0]


def measure(url: str, bodies: list[bytes], now: datetime, timer: CollectionTimer) -> str:
    """Post the bodies to a fresh app on ``url``; the line of figures."""
    from trustprobe.service import ServiceSettings, create_app
    from trustprobe.store import Scope, create_api_key, open_store

    store = open_store(url, upgrade=True)
    try:
        key = create_api_key(
            store, organisation=ORGANISATION, scopes=frozenset({Scope.WRITE}), now=now
        ).key
        app = create_app(ServiceSettings(), store=store, clock=lambda: now)
        assert post(app, bodies[0], key) == 200
        with timer.timing():
            cpu = time.process_time()
            for body in bodies[1:]:
                assert post(app, body, key) == 200
            cpu = time.process_time() - cpu
    finally:
        store.close()
    count = (len(bodies) - 1) * BATCH
    return (
        f"{cpu / count * 1e6:5.1f} µs/record, of which collections "
        f"{timer.seconds / count * 1e6:4.1f} ({timer.count} collections)"
    )


def main() -> None:
    import trustprobe
    from trustprobe.cli.collection import SERVICE_THRESHOLDS, bulk_collection

    backends = os.environ.get("TRUSTPROBE_BENCH_BACKENDS", "sqlite,postgresql").split(",")
    thresholds = os.environ.get("TRUSTPROBE_BENCH_THRESHOLDS", "default,service").split(",")
    rounds = int(os.environ.get("TRUSTPROBE_BENCH_ROUNDS") or ROUNDS)
    batches = int(os.environ.get("TRUSTPROBE_BENCH_BATCHES") or BATCHES)
    now = datetime.now(UTC).replace(microsecond=0)
    bodies = [
        json.dumps(records(BATCH, "m", now, aged="0", seed=i)).encode() for i in range(batches + 1)
    ]
    timer = CollectionTimer()
    print(
        f"POST /v1/evidence in process, {batches} batches of {BATCH:,d} records, trustprobe "
        f"from {Path(trustprobe.__file__).parent.parent}; load average {os.getloadavg()[0]:.1f}"
    )
    with tempfile.TemporaryDirectory() as directory:
        for backend in backends:
            for round_number in range(rounds):
                for name in thresholds:
                    folder = Path(directory)
                    with throwaway_database(backend, folder, f"{round_number}-{name}") as url:
                        if url is None:
                            break
                        settings = (
                            bulk_collection(SERVICE_THRESHOLDS)
                            if name == "service"
                            else nullcontext()
                        )
                        with settings:
                            line = measure(url, bodies, now, timer)
                    print(f"{backend:10s} {name:8s} thresholds: {line}", flush=True)
    print(f"load average {os.getloadavg()[0]:.1f}")
