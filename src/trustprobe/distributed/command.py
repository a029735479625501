"""The ``--engine dask`` paths of ``trustprobe score`` and ``trustprobe trust recompute``."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

from trustprobe.detectors import RulePack
from trustprobe.distributed.cluster import dask_client
from trustprobe.distributed.sharded import score_shards
from trustprobe.distributed.shards import expand_shards
from trustprobe.distributed.trust import on_cluster
from trustprobe.probes import Probe
from trustprobe.reports import Report
from trustprobe.store import Recomputation, TrustStore, recompute_trust
from trustprobe.store.recompute import Agent, PartitionScore, PartitionTask


def score_command(
    probes: Sequence[Probe],
    responses: Sequence[str | Path],
    rule_packs: Sequence[RulePack],
    *,
    output: Path,
    scheduler: str | None,
    workers: int | None,
    probe_sources: Sequence[str],
    rule_sources: Sequence[str],
    min_cases: int,
    seed: int,
    console: Console,
    fail_under: float | None = None,
) -> Report:
    """Score on the cluster and write ``output``; the returned report lacks cases and points.

    Sources are recorded as an in-process ``score`` records them, with glob patterns expanded,
    so the two reports agree byte for byte apart from the creation time.

    Raises:
        InputError: bad input.
        DistributedRunError: the cluster cannot be reached or lost work for good.
    """
    shards = expand_shards(responses)
    sources = {
        "probes": list(probe_sources),
        "responses": [shard.name for shard in shards],
        "rules": list(rule_sources),
    }
    progress = Progress(
        "scoring blocks", BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console
    )
    task = progress.add_task("blocks", total=None)
    with dask_client(scheduler, workers=workers) as client, progress:
        run = score_shards(
            client,
            probes,
            [shard.name for shard in shards],
            rule_packs=rule_packs,
            output=output,
            sources=sources,
            min_cases=min_cases,
            seed=seed,
            progress=lambda done, total: progress.update(task, completed=done, total=total),
            fail_under=fail_under,
        )
    return run.report


def recompute_command(
    store: TrustStore,
    *,
    organisation: str,
    now: datetime,
    scheduler: str | None,
    workers: int | None,
    agents_per_partition: int,
) -> Recomputation:
    """Recompute the organisation's trust with its partitions of agents scored on the cluster.

    The cluster is reached (or started) only once there are agents to score: an unknown
    organisation fails at once, and one without agents needs no cluster.

    Raises:
        NotFoundError: the organisation does not exist in the store.
        DistributedRunError: the cluster cannot be reached or lost work for good.
    """

    def on_dask(
        task: PartitionTask, partitions: Sequence[Sequence[Agent]]
    ) -> list[Sequence[PartitionScore]]:
        with dask_client(scheduler, workers=workers) as client:
            return list(on_cluster(client)(task, partitions))

    return recompute_trust(
        store,
        organisation=organisation,
        now=now,
        map_partitions=on_dask,
        agents_per_partition=agents_per_partition,
    )
