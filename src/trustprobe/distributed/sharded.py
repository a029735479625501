"""``score_shards``: score sharded responses on a Dask cluster, byte for byte as in process.

Three passes over the input, each a set of tasks:

1. **index** — one task per shard (:func:`~trustprobe.distributed.shards.index_shard`):
   validation, blocks, duplicates, the candidates of the observability sample's uniform part;
2. **score** — one task per block (:func:`~trustprobe.distributed.job.score_block`): score,
   tally the metric partial, pick the block's cases of each (category, outcome) stratum with
   the smallest draws, render the cases. The client consumes blocks in order, a bounded
   number in flight, appending their text to the report as it arrives;
3. **sample** — the observability sample's records (uniform part and strata picks) are
   re-read by offset and scored, and the client maps their geometry.

The report's metrics and observability come through the same ``finalize_metrics`` /
``observe_cases`` as ``build_report`` uses, over the same sample, so nothing but the creation
time can differ from an in-process run over the same files.
"""

from __future__ import annotations

import bisect
import logging
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
from distributed import Client, Future, as_completed
from distributed.scheduler import KilledWorker

from trustprobe.detectors import Detector, RulePack
from trustprobe.distributed.job import (
    BlockResult,
    ScorerPlugin,
    ScoringJob,
    plugin_name,
    score_block,
    score_records,
)
from trustprobe.distributed.plan import (
    BlockWork,
    Key,
    Locate,
    block_work,
    resolve_duplicates,
    warnings_of,
)
from trustprobe.distributed.shards import (
    BLOCK_RECORDS,
    Block,
    LineError,
    Shard,
    ShardIndex,
    expand_shards,
    index_shard,
    locate_keys,
)
from trustprobe.distributed.spool import BlockText, Spool, SpoolError
from trustprobe.errors import ClusterError
from trustprobe.metrics import MetricsPartial, finalize_metrics
from trustprobe.observability import (
    Observability,
    ObservabilitySample,
    fit_sample_size,
    observe_cases,
)
from trustprobe.probes import Probe
from trustprobe.reports import Report, build_provenance, run_gate
from trustprobe.reports.stream import ReportStream, report_end, report_head
from trustprobe.responses import Response, check_known_probes
from trustprobe.scoring import CaseScore, ScoringConfig

logger = logging.getLogger(__name__)
T = TypeVar("T")

MAX_FEATURES = 5000
"""TF-IDF vocabulary limit (``build_report`` uses ``build_observability``'s default)."""


class DistributedRunError(ClusterError):
    """The cluster lost work it could not redo; no report was written."""


@dataclass(frozen=True)
class ShardedRun:
    """A finished distributed run: the report (written to ``output``) and what went into it."""

    report: Report
    """The report without its cases and points (those are only in the file)."""
    output: Path
    shards: int
    blocks: int
    cases: int
    """Cases written: every kept record of every shard, counted in and out."""
    points: int
    """Observability points written (one per sampled case, or 0 without observability)."""
    block_text: BlockText
    """How the blocks' text reached the report: ``FILES`` or ``SEND`` (never ``AUTO``)."""


Progress = Callable[[int, int], None]
"""Called with (blocks done, blocks in all) as the scoring pass advances."""


def _gather(client: Client, futures: Sequence[Future[T]], what: str) -> list[T]:
    """Results of ``futures``, a task lost with every worker that tried it made a clear error."""
    try:
        return list(client.gather(list(futures)))
    except KilledWorker as exc:
        raise DistributedRunError(
            f"{what}: a task was lost with every worker that tried it ({exc}); no report was"
            " written"
        ) from exc


def _check_results(results: Sequence[ShardIndex]) -> None:
    for result in results:  # shard order: the in-process loader stops at the first bad line
        if result.error is not None:
            raise result.error.to_error()


def _locate(client: Client, token: str) -> Locate:
    def locate(wanted: Mapping[Shard, frozenset[Key]]) -> dict[Shard, dict[Key, list[int]]]:
        shards = list(wanted)
        futures = [
            client.submit(locate_keys, shard, wanted[shard], key=f"trustprobe-locate-{token}-{i}")
            for i, shard in enumerate(shards)
        ]
        return dict(zip(shards, _gather(client, futures, "finding repeats"), strict=True))

    return locate


Place = tuple[int, int, int]
"""Where a record is: (shard position, line number, start)."""


def _uniform_places(indexes: Sequence[ShardIndex]) -> set[Place]:
    """The uniform part of the observability sample: the smallest draws over the run.

    Each shard offered its own smallest (ties by line), so the run's are among them.
    """
    shard = np.concatenate([np.full(len(i.candidates), p) for p, i in enumerate(indexes)])
    priority = np.concatenate([i.candidates.priority for i in indexes])
    line = np.concatenate([i.candidates.line for i in indexes])
    offset = np.concatenate([i.candidates.offset for i in indexes])
    chosen = np.lexsort((line, shard, priority))[: fit_sample_size()]
    return set(
        zip(shard[chosen].tolist(), line[chosen].tolist(), offset[chosen].tolist(), strict=True)
    )


def _sample_cases(
    client: Client, plugin: str, indexes: Sequence[ShardIndex], places: set[Place], token: str
) -> list[CaseScore] | None:
    """The sampled records scored again, in run order (shard, then line).

    ``None`` when a sampled record is invalid (the caller then looks for the first invalid
    line).
    """
    by_shard: dict[int, list[tuple[int, int]]] = {}
    for position, number, where in sorted(places):
        by_shard.setdefault(position, []).append((number, where))
    futures = [
        client.submit(
            score_records,
            plugin,
            indexes[position].shard,
            where,
            key=f"trustprobe-sample-{token}-{position}",
        )
        for position, where in sorted(by_shard.items())
    ]
    cases: list[CaseScore] = []
    for result in _gather(client, futures, "scoring the observability sample"):
        if isinstance(result, LineError):
            return None
        cases.extend(result)
    return cases


def _score_blocks(
    client: Client,
    work: Sequence[BlockWork],
    *,
    plugin: str,
    worst_n: int,
    seed: int,
    stream: ReportStream,
    spool: Spool,
    token: str,
    max_in_flight: int,
    busy_target: int,
    progress: Progress | None,
    uniform: set[Place],
    sampled: dict[Place, CaseScore],
) -> tuple[MetricsPartial, ObservabilitySample]:
    """Score every block, writing results in block order as they become available.

    New blocks are submitted whenever any block finishes, so no worker waits for the client to
    reach a slow block; at most ``max_in_flight`` blocks are submitted ahead of the one being
    written, which bounds the results held on workers. The cases at the ``uniform`` places
    come back with their blocks, into ``sampled``.
    """
    sample_lines = _sample_lines(uniform)
    # Merged as blocks arrive, so the client holds one partial of each kind, not one per block.
    metrics = MetricsPartial(worst_n=worst_n)
    strata = ObservabilitySample(seed, size=0)
    futures: dict[int, Future[BlockResult]] = {}
    numbers: dict[str, int] = {}
    finished: set[int] = set()
    completions = as_completed()
    submitted = written = 0

    def submit() -> None:
        nonlocal submitted
        while (
            submitted < len(work)
            and submitted - written < max_in_flight
            and submitted - written - len(finished) < busy_target
        ):
            item = work[submitted]
            key = f"trustprobe-block-{token}-{submitted}"
            futures[submitted] = client.submit(
                score_block,
                plugin,
                item.block,
                item.drop_lines,
                item.first_index,
                worst_n,
                seed,
                strata.floor,
                sample_lines(item.block),
                None if spool.directory is None else str(spool.directory),
                submitted,
                key=key,
                priority=-submitted,
            )
            numbers[key] = submitted
            completions.add(futures[submitted])
            submitted += 1

    try:
        submit()
        for future in completions:
            if future.status == "error":
                _block_result(work[numbers[future.key]], future)  # raises, with the block named
            finished.add(numbers[future.key])
            while written in finished:
                result = _block_result(work[written], futures.pop(written))
                finished.discard(written)
                _add_cases(stream, spool, work[written], result)
                assert result.metrics is not None  # checked by _block_result
                metrics = metrics.merge(result.metrics)
                if result.strata is not None:
                    strata.merge(result.strata)
                position = result.block.shard.index
                for (number, start), case in result.sampled:
                    sampled[(position, number, start)] = case
                written += 1
                if progress is not None:
                    progress(written, len(work))
            submit()
    except BaseException:
        # The run is over: free the cluster from the blocks still queued for it.
        client.cancel(list(futures.values()))
        raise
    if written != len(work):
        raise DistributedRunError(
            f"{written} of {len(work)} blocks came back; no report was written"
        )
    return metrics, strata


def _sample_lines(uniform: set[Place]) -> Callable[[Block], frozenset[int]]:
    """For a block, the lines of it whose records are in the ``uniform`` sample."""
    lines_of: dict[int, list[int]] = {}
    for position, number, _ in sorted(uniform):
        lines_of.setdefault(position, []).append(number)

    def sample_lines(block: Block) -> frozenset[int]:
        lines = lines_of.get(block.shard.index, [])
        low = bisect.bisect_left(lines, block.first_line)
        return frozenset(lines[low : bisect.bisect_right(lines, block.last_line)])

    return sample_lines


def _add_cases(stream: ReportStream, spool: Spool, item: BlockWork, result: BlockResult) -> None:
    """Append a block's rendered cases to the report: sent back with its result, or its file's."""
    if result.cases_file is None:
        stream.add(result.cases_json, result.cases, b"", 0)
    else:
        text = spool.take(result.cases_file, result.cases_bytes, item.block.describe())
        stream.add_file(text, result.cases)
        text.unlink()


def _block_result(item: BlockWork, future: Future[BlockResult]) -> BlockResult:
    """The block's result, checked: every record that went in came out as a case."""
    block = item.block
    try:
        result = future.result()
    except KilledWorker as exc:
        raise DistributedRunError(
            f"{block.describe()} was lost with every worker that tried it ({exc});"
            " no report was written"
        ) from exc
    except OSError as exc:  # the worker could not write the block's text to the spool
        raise SpoolError(
            f"{block.describe()}: its worker could not write the block's text ({exc});"
            " no report was written"
        ) from exc
    future.release()
    if result.error is not None:
        raise result.error.to_error()
    if result.cases != item.expected_cases or result.metrics is None:
        raise DistributedRunError(
            f"{block.describe()} yielded {result.cases} cases where"
            f" {item.expected_cases} records went in; no report was written"
        )
    return result


def _observability(
    client: Client,
    plugin: str,
    plan: _Plan,
    strata: ObservabilitySample,
    shards: Sequence[Shard],
    *,
    token: str,
    total_cases: int,
    seed: int,
    min_cases: int,
    uniform: set[Place],
    sampled: Mapping[Place, CaseScore],
) -> Observability | None:
    """The run's geometry from its sample: the uniform part and every stratum's picks.

    The uniform part came back with the blocks (``sampled``); only the strata picks outside
    it are read and scored again.
    """
    if plan.scored < min_cases:
        return None
    places = uniform | set(strata.cases())
    again = sorted(places - sampled.keys())
    logger.info(
        "sample of %d cases: %d came with their blocks, %d read again",
        len(places),
        len(places) - len(again),
        len(again),
    )
    rescored = _sample_cases(client, plugin, plan.indexes, set(again), token)
    if rescored is not None and len(rescored) != len(again):
        raise DistributedRunError(
            f"{len(rescored)} of {len(again)} sampled records came back; no report was written"
        )
    found = None if rescored is None else {**sampled, **dict(zip(again, rescored, strict=True))}
    cases = None if found is None else [found[place] for place in sorted(places)]
    if cases is None:
        _check_results(plan.index(shards, {}, validate=True))
        raise DistributedRunError(
            "a sampled record could not be read again though every line validates;"
            " did a shard change during the run? No report was written"
        )
    return observe_cases(
        cases,
        seed=seed,
        scored=plan.scored,
        harness_errors=total_cases - plan.scored,
        min_cases=min_cases,
        max_features=MAX_FEATURES,
    )


@dataclass(frozen=True)
class _Plan:
    """What the index pass decided: the blocks to score, warnings, missing probes."""

    index: Callable[..., list[ShardIndex]]
    """Index shards again (``validate=True`` to find the first invalid line)."""
    indexes: list[ShardIndex]
    work: list[BlockWork]
    warnings: list[str]
    missing: list[str]
    scored: int
    """Cases with a response (not a harness error) that will be scored."""


def _plan(
    client: Client,
    probes: Sequence[Probe],
    shards: Sequence[Shard],
    *,
    seed: int,
    block_records: int,
    token: str,
) -> _Plan:
    """Index every shard; raise the in-process loader's error, or resolve repeats and plan."""
    probe_ids = frozenset(p.id for p in probes)
    size = fit_sample_size()

    def index(
        targets: Sequence[Shard], drops: Mapping[int, frozenset[int]], validate: bool = False
    ) -> list[ShardIndex]:
        futures = [
            client.submit(
                index_shard,
                shard,
                probe_ids=probe_ids,
                seed=seed,
                sample_size=size,
                block_records=block_records,
                drop_lines=drops.get(shard.index, frozenset()),
                validate=validate,
                key=f"trustprobe-index-{token}-{shard.index}-{len(drops)}-{validate}",
            )
            for shard in targets
        ]
        return _gather(client, futures, "indexing shards")

    with _logged_phase("indexed %d shards", len(shards)):
        indexes = index(shards, {})
    unknown = sorted(set().union(*(i.unknown_probe_ids for i in indexes)))
    failed = [i.shard.index for i in indexes if i.error is not None]
    if failed or unknown:
        # The in-process loader reports the first invalid line of any kind before anything
        # else; the fast index validated fully only unusual lines, so check again in full.
        _check_results(index(shards[: failed[0] + 1] if failed else shards, {}, validate=True))
    # The loader's own check, so the message is the one an in-process run gives.
    check_known_probes([Response(probe_id=p, error="unknown") for p in unknown], set(probe_ids))

    duplicates = resolve_duplicates(indexes, _locate(client, token))
    changed = {
        position: frozenset(d.line for d in duplicates[position])
        for position, found in enumerate(indexes)
        if duplicates[position] != found.duplicates
    }
    if changed:  # records dropped for another shard's sake: recount and redraw those shards
        again = index([indexes[p].shard for p in changed], changed)
        for position, found in zip(changed, again, strict=True):
            indexes[position] = found
    answered = set().union(*(i.probe_ids for i in indexes))
    return _Plan(
        index=index,
        indexes=indexes,
        work=block_work(indexes, duplicates),
        warnings=warnings_of(indexes, duplicates),
        missing=[p.id for p in probes if p.id not in answered],
        scored=sum(i.scored for i in indexes),
    )


@contextmanager
def _logged_phase(what: str, *args: object) -> Iterator[None]:
    """Log the wall and client CPU time of a phase of the run, as ``what % args`` "in ... s"."""
    started, cpu = time.perf_counter(), time.process_time()
    yield
    logger.info(
        what + " in %.2f s (client CPU %.2f s)",
        *args,
        time.perf_counter() - started,
        time.process_time() - cpu,
    )


@contextmanager
def _scorer_plugin(client: Client, job: ScoringJob, token: str) -> Iterator[str]:
    """The job's scorer registered on the workers for the run; yields the plugin's name."""
    plugin = plugin_name(job.digest(), token)
    client.register_plugin(ScorerPlugin(job), name=plugin)
    try:
        yield plugin
    finally:
        # Best effort: a cluster that is gone has no plugin left to remove, and the error that
        # ended the run is the one to report.
        with suppress(Exception):
            client.unregister_worker_plugin(plugin)


def score_shards(
    client: Client,
    probes: Sequence[Probe],
    responses: Sequence[str | Path],
    *,
    rule_packs: Sequence[RulePack],
    output: str | Path,
    scoring: ScoringConfig | None = None,
    config: Mapping[str, Any] | None = None,
    created_at: datetime | None = None,
    sources: Mapping[str, Sequence[str]] | None = None,
    min_cases: int = 5,
    seed: int = 0,
    worst_n: int = 10,
    block_records: int = BLOCK_RECORDS,
    max_in_flight: int | None = None,
    progress: Progress | None = None,
    fail_under: float | None = None,
    block_text: BlockText = BlockText.AUTO,
) -> ShardedRun:
    """Score response shards on the cluster behind ``client`` and write the report to ``output``.

    The report equals ``build_report(probes, load_responses(shards).responses, ...)`` written by
    ``write_report_json``, byte for byte apart from ``provenance.created_at``: same cases in
    the same order, same warnings, metrics and observability.

    Args:
        client: A connected Dask client (see :func:`~trustprobe.distributed.dask_client`).
        probes: The probe set.
        responses: Shard paths, JSONL or ``.parquet``; a glob pattern expands to its sorted
            matches.
        rule_packs: Every rule pack, built-in ones included, in load order.
        output: Where the JSON report goes (written atomically, never partially).
        scoring: The scoring config (default ``ScoringConfig()``).
        config: Extra settings recorded in the provenance, as ``build_report`` takes them.
        created_at: Creation time recorded in the provenance (default: now).
        sources: Input files by role, recorded in the provenance.
        min_cases: Scored cases needed before observability is computed.
        seed: Seed of the observability sample, SVDs and KMeans.
        worst_n: Worst cases listed in the metrics.
        block_records: Records per scoring task; bounds a worker's memory.
        max_in_flight: Blocks submitted ahead of the one being written (default: 4 per
            worker thread, at least 4); bounds the results waiting on workers.
        progress: Called with (blocks done, blocks in all).
        fail_under: The ``--fail-under`` gate recorded in the report's ``gate``, if any.
        block_text: How blocks' rendered cases reach the client: written by the workers to
            files beside ``output`` (``FILES``), sent back with their results (``SEND``), or
            through files when every worker sees the output's directory (``AUTO``).

    Raises:
        InputError: an invalid record (the first one, in file order), a response for an
            unknown probe, or a pattern matching no file.
        DistributedRunError: the cluster lost a block it could not recompute, or a block's
            cases did not match the records that went in.
        SpoolError: ``block_text`` is ``FILES`` and a worker does not see the output's
            directory, or a block's text file could not be written or read.
    """
    if block_records < 1:
        raise ValueError(f"block_records must be >= 1, got {block_records}")
    shards = expand_shards(responses)
    scoring = scoring or ScoringConfig()
    detector = Detector.from_packs(rule_packs)
    provenance = build_provenance(
        probes,
        detector=detector,
        scoring=scoring,
        config=config,
        created_at=created_at,
        sources=sources,
        min_cases=min_cases,
        seed=seed,
        worst_n=worst_n,
    )
    head = report_head(provenance)
    token = uuid.uuid4().hex[:12]
    plan = _plan(client, probes, shards, seed=seed, block_records=block_records, token=token)
    work = plan.work
    total_cases = sum(item.expected_cases for item in work)

    job = ScoringJob(tuple(probes), tuple(rule_packs), scoring, detector.digest)
    with _scorer_plugin(client, job, token) as plugin:
        threads = sum(client.nthreads().values()) or 1
        with (
            ReportStream(output, head) as stream,
            Spool(client, stream.output, block_text) as spool,
        ):
            uniform = _uniform_places(plan.indexes) if plan.scored >= min_cases else set()
            sampled: dict[Place, CaseScore] = {}
            used = BlockText.SEND if spool.directory is None else BlockText.FILES
            with _logged_phase("scored %d blocks", len(work)):
                metrics, strata = _score_blocks(
                    client,
                    work,
                    plugin=plugin,
                    worst_n=worst_n,
                    seed=seed,
                    stream=stream,
                    spool=spool,
                    token=token,
                    max_in_flight=max_in_flight or max(4, 4 * threads),
                    busy_target=2 * threads,
                    progress=progress,
                    uniform=uniform,
                    sampled=sampled,
                )
            if metrics.cases != total_cases or stream.cases != total_cases:
                raise DistributedRunError(
                    f"{stream.cases} cases were written where {total_cases} records went in;"
                    " no report was written"
                )
            with _logged_phase("observability mapped"):
                observability = _observability(
                    client, plugin, plan, strata, shards, token=token, total_cases=total_cases,
                    seed=seed, min_cases=min_cases, uniform=uniform, sampled=sampled,
                )  # fmt: skip
            aggregate = finalize_metrics(metrics, missing_probe_ids=plan.missing)
            report, points, placed = report_end(
                head,
                aggregate,
                observability,
                warnings=plan.warnings,
                gate=run_gate(aggregate, fail_under=fail_under),
            )
            stream.add(b"", 0, points, placed)
            stream.finish(report)
    return ShardedRun(
        report=report,
        output=Path(output),
        shards=len(shards),
        blocks=len(work),
        cases=total_cases,
        points=stream.points,
        block_text=used,
    )
