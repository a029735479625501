"""The scoring job every worker runs, and the per-block and per-sample tasks.

Rule packs compile into one RE2 set, which cannot be pickled and takes a noticeable fraction
of a second to build, so each worker builds its :class:`~trustprobe.scoring.Scorer` once, in a
worker plugin registered under the job's digest, and every task of the run reuses it (with
the scorer's cache of compiled probe signals).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from distributed import Worker, WorkerPlugin, get_worker

from trustprobe.detectors import Detector, RulePack
from trustprobe.distributed.shards import Block, LineError, Shard, read_block, read_lines_at
from trustprobe.errors import InputError
from trustprobe.metrics import MetricsPartial, metrics_partial
from trustprobe.observability import (
    CaseText,
    GeometryModel,
    GeometryPartial,
    place_cases,
    scored_case_texts,
)
from trustprobe.probes import Probe, probe_set_hash
from trustprobe.reports.stream import (
    CASES,
    CASES_DEPTH,
    POINTS,
    POINTS_DEPTH,
    render_items,
)
from trustprobe.responses import Response
from trustprobe.scoring import CaseScore, Scorer, ScoringConfig


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


class ScorerPlugin(WorkerPlugin):
    """Builds the job's scorer once per worker process (and again on a restarted worker)."""

    def __init__(self, job: ScoringJob) -> None:
        self.job = job
        self.scorer: Scorer | None = None
        self.probes: dict[str, Probe] = {}

    def setup(self, worker: Worker) -> None:
        """Compile the rule packs on this worker (signals in passes of their own, as in process)."""
        self.scorer = Scorer(Detector.from_packs(self.job.rule_packs), self.job.scoring)
        self.probes = {p.id: p for p in self.job.probes}

    def score(self, responses: Sequence[Response]) -> list[CaseScore]:
        """Score responses in order."""
        if self.scorer is None:
            raise RuntimeError("the scorer plugin was not set up on this worker")
        scorer, probes = self.scorer, self.probes
        return [scorer.score(probes[r.probe_id], r) for r in responses]


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
    """A scored block: its partials and its rendered cases and points, or the error it hit."""

    block: Block
    cases: int = 0
    metrics: MetricsPartial | None = None
    geometry: GeometryPartial | None = None
    points: int = 0
    cases_json: bytes = b""
    points_json: bytes = b""
    error: LineError | None = None


def score_block(
    plugin: str,
    block: Block,
    drop_lines: frozenset[int],
    first_index: int,
    worst_n: int,
    model: GeometryModel | None,
) -> BlockResult:
    """Score one block: metric and geometry partials plus its cases and points as JSON text."""
    try:
        responses = read_block(block, drop_lines)
    except InputError as error:
        return BlockResult(block=block, error=LineError.of(error))
    cases = _plugin(plugin).score(responses)
    metrics = metrics_partial(cases, worst_n=worst_n, first_index=first_index)
    geometry, points = (None, []) if model is None else place_cases(model, cases)
    return BlockResult(
        block=block,
        cases=len(cases),
        metrics=metrics,
        geometry=geometry,
        points=len(points),
        cases_json=render_items(CASES, cases, CASES_DEPTH),
        points_json=render_items(POINTS, points, POINTS_DEPTH),
    )


def sample_texts(
    plugin: str, shard: Shard, places: Sequence[tuple[int, int]]
) -> list[tuple[int, CaseText]] | LineError:
    """Score the fitting-sample records at (line, offset) ``places``; their texts by line."""
    try:
        responses = read_lines_at(shard, places)
    except InputError as error:
        return LineError.of(error)
    cases = _plugin(plugin).score(responses)
    return [(line, text) for (line, _), text in zip(places, scored_case_texts(cases), strict=True)]
