"""The ``trustprobe score --engine dask`` path: connect, score the shards, return the report."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

from trustprobe.detectors import RulePack
from trustprobe.distributed.cluster import dask_client
from trustprobe.distributed.engine import score_shards
from trustprobe.distributed.shards import expand_shards
from trustprobe.errors import InputError
from trustprobe.probes import Probe
from trustprobe.reports import Report

ENGINES = ("dask",)
"""Values ``--engine`` accepts."""


def score_command(
    engine: str,
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
) -> Report:
    """Score on the cluster and write ``output``; the returned report lacks cases and points.

    Sources are recorded as an in-process ``score`` records them, with glob patterns expanded,
    so the two reports agree byte for byte apart from the creation time.

    Raises:
        InputError: an unknown engine, both ``scheduler`` and ``workers``, or bad input.
        DistributedRunError: the cluster cannot be reached or lost work for good.
    """
    if engine not in ENGINES:
        raise InputError(
            f"unknown engine {engine!r}; choose one of: {', '.join(ENGINES)}", field="--engine"
        )
    if scheduler is not None and workers is not None:
        raise InputError("give --scheduler or --workers, not both", field="--workers")
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
        )
    return run.report
