"""Connecting to a Dask cluster: an existing scheduler, or local worker processes."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Final

import dask
from distributed import Client, LocalCluster

from trustprobe.distributed.sharded import DistributedRunError

CONNECT_TIMEOUT_S: Final = 30
"""How long to wait for a scheduler to answer, and for it to have at least one worker."""
QUIET_CLUSTER: Final = {
    # The workers' statistical profiler samples every thread's stack 100 times a second.
    "distributed.worker.profile.enabled": False,
    # Housekeeping that wakes every 20-500 ms: on an idle local cluster it kept 6 % of a core
    # busy in the client (which hosts the scheduler) and 3 % in each worker; every 1-5 s it
    # costs about a fifth of that (docs/benchmarks.md). Scoring tasks are CPU-bound and even.
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "5s",
    "distributed.worker.memory.monitor-interval": "1s",
}
"""Dask settings of the local clusters :func:`dask_client` starts (recommended for others)."""


@contextmanager
def dask_client(
    scheduler: str | None = None,
    *,
    workers: int | None = None,
    connect_timeout_s: float = CONNECT_TIMEOUT_S,
) -> Iterator[Client]:
    """A client of the scheduler at ``scheduler`` (``tcp://host:port``), or of a local cluster.

    Without ``scheduler`` a :class:`~distributed.LocalCluster` of ``workers`` processes (default:
    one per CPU) with one thread each is started and shut down on exit. Scoring is pure Python
    holding the GIL, so processes, not threads, are what run in parallel.

    Raises:
        ValueError: both ``scheduler`` and ``workers`` are given, or ``workers`` < 1.
        DistributedRunError: the scheduler cannot be reached or has no worker in time.
    """
    if scheduler is not None and workers is not None:
        raise ValueError("give either a scheduler address or a number of local workers, not both")
    if workers is not None and workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    if scheduler is None:
        with (
            dask.config.set(QUIET_CLUSTER),
            LocalCluster(
                n_workers=workers or os.cpu_count() or 1,
                threads_per_worker=1,
                processes=True,
                # Any free port: a fixed one (8787) may belong to someone else's cluster.
                dashboard_address="127.0.0.1:0",
            ) as cluster,
            Client(cluster) as client,
        ):
            yield client
        return
    try:
        client = Client(scheduler, timeout=connect_timeout_s)
    except (OSError, TimeoutError) as exc:
        raise DistributedRunError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from exc
    try:
        try:
            client.wait_for_workers(1, timeout=connect_timeout_s)
        except TimeoutError as exc:
            raise DistributedRunError(
                f"the Dask scheduler at {scheduler} has no worker after {connect_timeout_s:g} s;"
                " start workers with: dask worker " + scheduler
            ) from exc
        yield client
    finally:
        with suppress(OSError, TimeoutError):
            client.close()
