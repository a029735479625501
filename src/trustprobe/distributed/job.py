"""The scoring job every worker runs, and the per-block and per-sample tasks.

Rule packs compile into one RE2 set, which cannot be pickled and takes a noticeable fraction
of a second to build, so each worker builds its :class:`~trustprobe.scoring.Scorer` once, in a
worker plugin registered under the job's digest, and every task of the run reuses it (with
the scorer's cache of compiled probe signals).
"""

from __future__ import annotations

import gc
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from distributed import Worker, WorkerPlugin, get_worker

from trustprobe.detectors import Detector, RulePack
from trustprobe.distributed.shards import Block, LineError, Shard, read_block, read_lines_at
from trustprobe.distributed.spool import write_block_text
from trustprobe.errors import InputError
from trustprobe.metrics import MetricsPartial, metrics_partial
from trustprobe.observability import ObservabilitySample
from trustprobe.probes import Probe, probe_set_hash
from trustprobe.reports.stream import CASES_DEPTH, line_layout
from trustprobe.responses import Response
from trustprobe.scoring import CaseScore, ScoredCases, Scorer, ScoringConfig


@dataclass(frozen=True)
class ScoringJob:
    """What scoring needs on every worker: probes, rule packs and the scoring config."""

    probes: tuple[Probe, ...]
    rule_packs: tuple[RulePack, ...]
    scoring: ScoringConfig
    rule_set_hash: str
    """``Detector.digest`` of the packs, computed once on the client."""

    def digest(self) -> str:
        """Identity of the job: probes, rules and config (names the worker plugin)."""
        canonical = "\n".join(
            [probe_set_hash(self.probes), self.rule_set_hash, self.scoring.model_dump_json()]
        )
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


WORKER_GC_THRESHOLDS = (100_000, 50, 100)
"""Garbage collection thresholds of a worker running a job (those of ``trustprobe score``)."""


class ScorerPlugin(WorkerPlugin):
    """Builds the job's scorer once per worker process (and again on a restarted worker)."""

    def __init__(self, job: ScoringJob) -> None:
        self.job = job
        self.scorer: Scorer | None = None
        self.probes: dict[str, Probe] = {}
        self._thresholds: tuple[int, int, int] | None = None

    def setup(self, worker: Worker) -> None:
        """Compile the rule packs on this worker (signals in passes of their own, as in process).

        While the job is registered the worker collects garbage rarely, as ``trustprobe score``
        does: a block's responses and cases live one task and hold no cycles, and frequent full
        collections walking the worker's whole heap (Dask's included) cost a fifth of its CPU.
        """
        self.scorer = Scorer(Detector.from_packs(self.job.rule_packs), self.job.scoring)
        self.probes = {p.id: p for p in self.job.probes}
        self._thresholds = gc.get_threshold()
        gc.freeze()
        gc.set_threshold(*WORKER_GC_THRESHOLDS)

    def teardown(self, worker: Worker) -> None:
        """Give the worker its own garbage collection settings back."""
        if self._thresholds is not None:
            gc.set_threshold(*self._thresholds)
            gc.unfreeze()
            self._thresholds = None

    def score(self, responses: Sequence[Response]) -> list[CaseScore]:
        """Score responses in order."""
        scorer, probes = self._scorer(), self.probes
        return [scorer.score(probes[r.probe_id], r) for r in responses]

    def score_text(self, responses: Sequence[Response]) -> tuple[ScoredCases, bytes]:
        """Score responses in order, with the cases' text as the report lays it out.

        See :meth:`Scorer.score_text`.
        """
        prefix, separator = line_layout(CASES_DEPTH)
        return self._scorer().score_text(self.job.probes, responses, separator, prefix)

    def _scorer(self) -> Scorer:
        if self.scorer is None:
            raise RuntimeError("the scorer plugin was not set up on this worker")
        return self.scorer


def plugin_name(job_digest: str, run: str) -> str:
    """Name of the job's worker plugin for one run; runs never share a plugin."""
    return f"trustprobe-scorer-{job_digest[:12]}-{run}"


def _plugin(name: str) -> ScorerPlugin:
    plugin = get_worker().plugins.get(name)
    if not isinstance(plugin, ScorerPlugin):
        raise RuntimeError(f"worker has no plugin {name!r}; register the job before scoring")
    return plugin


@dataclass(frozen=True)
class BlockResult:
    """A scored block: its metric partial, its strata picks and its rendered cases, or an error."""

    block: Block
    cases: int = 0
    metrics: MetricsPartial | None = None
    strata: ObservabilitySample | None = None
    """The block's smallest draws per (category, outcome), kept as (shard, line, offset)."""
    cases_json: bytes = b""
    """The rendered cases, when they are sent back rather than spooled."""
    cases_file: str | None = None
    """The spooled file holding the rendered cases, when they went through the spool."""
    cases_bytes: int = 0
    """Size of the rendered cases."""
    sampled: tuple[tuple[tuple[int, int], CaseScore], ...] = ()
    """The cases asked for by (line, start), with their places: the sample's uniform part."""
    error: LineError | None = None


def score_block(
    plugin: str,
    block: Block,
    drop_lines: frozenset[int],
    first_index: int,
    worst_n: int,
    seed: int,
    floor: int,
    sample_lines: frozenset[int] = frozenset(),
    spool: str | None = None,
    number: int = 0,
) -> BlockResult:
    """Score one block: its metric partial, strata picks of the sample, cases as JSON text.

    The uniform part of the observability sample comes from the index pass: the block's cases
    on ``sample_lines`` come back as they are, so they need not be read and scored again.
    What the block adds is, per (category, outcome) stratum, its ``floor`` cases with the
    smallest draws. With a ``spool`` directory the cases' text goes to a file there (named
    after the block's ``number``) instead of into the result.
    """
    try:
        responses, places = read_block(block, drop_lines)
    except InputError as error:
        return BlockResult(block=block, error=LineError.of(error))
    cases, text = _plugin(plugin).score_text(responses)
    strata = ObservabilitySample(seed, size=0, floor=floor)
    strata.add(cases, first=first_index, places=[(block.shard.index, *p) for p in places])
    # Only the cases asked for are built (most of a block's stay columns).
    sampled = tuple(
        (place, cases[at]) for at, place in enumerate(places) if place[0] in sample_lines
    )
    name = None
    if spool is not None:
        name = write_block_text(spool, number, text)
    return BlockResult(
        block=block,
        cases=len(cases),
        metrics=metrics_partial(cases, worst_n=worst_n, first_index=first_index),
        strata=strata,
        cases_json=text if name is None else b"",
        cases_file=name,
        cases_bytes=len(text),
        sampled=sampled,
    )


def score_records(
    plugin: str, shard: Shard, places: Sequence[tuple[int, int]]
) -> list[CaseScore] | LineError:
    """Score the records at (line, offset) ``places`` again (the observability sample)."""
    try:
        responses = read_lines_at(shard, places)
    except InputError as error:
        return LineError.of(error)
    return _plugin(plugin).score(responses)
