"""Assemble a :class:`Report` from probes, responses and a rule set, in memory or streaming."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from datetime import UTC, datetime
from operator import attrgetter
from pathlib import Path
from typing import Any, TypeVar

from trustprobe import __version__
from trustprobe.detectors import Detector
from trustprobe.metrics import (
    MetricsPartial,
    RunMetrics,
    aggregate_metrics,
    finalize_metrics,
    metrics_partial,
)
from trustprobe.observability import ObservabilitySample, build_observability, observe_sample
from trustprobe.probes import Probe, probe_set_hash
from trustprobe.reports.gate import run_gate
from trustprobe.reports.models import Gate, Provenance, Report
from trustprobe.reports.stages import StageClock
from trustprobe.reports.stream import (
    CASES_DEPTH,
    ReportStream,
    line_layout,
    report_end,
    report_head,
)
from trustprobe.reports.target import ReportTarget
from trustprobe.responses import (
    CHUNK_RESPONSES,
    Response,
    ResponseChunk,
    check_known_probes,
    read_responses,
    unknown_probes_error,
)
from trustprobe.scoring import Scorer, ScoringConfig

T = TypeVar("T")


def build_report(
    probes: Sequence[Probe],
    responses: Sequence[Response],
    *,
    detector: Detector,
    scoring: ScoringConfig | None = None,
    config: Mapping[str, Any] | None = None,
    created_at: datetime | None = None,
    warnings: Sequence[str] = (),
    sources: Mapping[str, Sequence[str]] | None = None,
    min_cases: int = 5,
    seed: int = 0,
    worst_n: int = 10,
    target: ReportTarget | None = None,
    clock: StageClock | None = None,
) -> Report:
    """Score every response, aggregate run metrics and map the failure geometry.

    A response for an unknown probe is an error (raised as ``InputError``); a probe without any
    response is reported as missing, never dropped. ``clock`` times the stages, if given.
    """
    stage = _stages(clock)

    check_known_probes(responses, {p.id for p in probes})
    scoring = scoring or ScoringConfig()
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
    with stage("scoring"):
        cases = Scorer(detector, scoring).score_all(probes, responses)
    answered = {r.probe_id for r in responses}
    missing = [p.id for p in probes if p.id not in answered]
    with stage("metrics"):
        metrics = aggregate_metrics(cases, missing_probe_ids=missing, worst_n=worst_n)
    with stage("observability"):
        observability = build_observability(cases, min_cases=min_cases, seed=seed)
    return Report(
        provenance=provenance,
        target=target,
        cases=cases,
        aggregate_metrics=metrics,
        observability=observability,
        warnings=list(warnings),
    )


def _stages(clock: StageClock | None) -> Any:
    """``clock.stage``, or a stand-in that times nothing."""
    if clock is not None:
        return clock.stage

    def untimed(name: str) -> AbstractContextManager[None]:
        return nullcontext()

    return untimed


def _timed(items: Iterator[T], stage: Any, name: str) -> Iterator[T]:
    """``items``, the time spent producing each counted to stage ``name``."""
    while True:
        with stage(name):
            item = next(items, None)
        if item is None:
            return
        yield item


def stream_report(
    probes: Sequence[Probe],
    responses: Sequence[str | Path],
    output: str | Path,
    *,
    detector: Detector,
    scoring: ScoringConfig | None = None,
    config: Mapping[str, Any] | None = None,
    created_at: datetime | None = None,
    sources: Mapping[str, Sequence[str]] | None = None,
    min_cases: int = 5,
    seed: int = 0,
    worst_n: int = 10,
    chunk: int = CHUNK_RESPONSES,
    clock: StageClock | None = None,
    target: ReportTarget | None = None,
    names: Mapping[str, str] | None = None,
    fail_under: float | None = None,
) -> Report:
    """Score response files chunk by chunk and write the report to ``output`` as it goes.

    The file equals ``write_report_json(build_report(...))`` over the same responses, byte for
    byte apart from ``provenance.created_at``, but memory does not grow with the run: each
    chunk is read, scored, tallied into the metric partials, offered to the observability
    sample and written out before the next is read. The report appears only when complete
    (see :class:`~trustprobe.reports.stream.ReportStream`).

    Returns:
        The report without its cases and observability points (those are only in the file).

    Raises:
        InputError: an invalid record, or responses for probes not in ``probes`` (all such
            ids listed); no file is written.
    """
    stage = _stages(clock)
    return stream_chunks(
        probes,
        _timed(read_responses(responses, chunk=chunk, names=names), stage, "loading"),
        output,
        detector=detector, scoring=scoring, config=config, created_at=created_at,
        sources=sources, min_cases=min_cases, seed=seed, worst_n=worst_n, clock=clock,
        target=target, gate=lambda metrics: run_gate(metrics, fail_under=fail_under),
    )  # fmt: skip


_PROBE_ID = attrgetter("probe_id")


def stream_chunks(
    probes: Sequence[Probe],
    chunks: Iterable[ResponseChunk],
    output: str | Path,
    *,
    detector: Detector,
    scoring: ScoringConfig | None = None,
    config: Mapping[str, Any] | None = None,
    created_at: datetime | None = None,
    sources: Mapping[str, Sequence[str]] | None = None,
    min_cases: int = 5,
    seed: int = 0,
    worst_n: int = 10,
    clock: StageClock | None = None,
    target: ReportTarget | None = None,
    warnings: Callable[[list[str]], list[str]] | None = None,
    gate: Callable[[RunMetrics], Gate | None] | None = None,
) -> Report:
    """Score responses arriving in chunks (duplicates already left out) and stream the report.

    What :func:`stream_report` does for any source of responses (a scan's journal, say).
    Once every chunk is read, ``warnings`` turns the chunks' warnings into the report's (by
    default they are the report's), and ``gate`` gives the report's gate from its metrics
    (by default none).

    Raises:
        InputError: responses for probes not in ``probes`` (all such ids listed); no file is
            written.
    """
    stage = _stages(clock)
    scoring = scoring or ScoringConfig()
    provenance = build_provenance(
        probes, detector=detector, scoring=scoring, config=config, created_at=created_at,
        sources=sources, min_cases=min_cases, seed=seed, worst_n=worst_n,
    )  # fmt: skip
    head = report_head(provenance, target)
    by_id = {p.id: p for p in probes}
    scorer = Scorer(detector, scoring)
    prefix, separator = line_layout(CASES_DEPTH)
    metrics = MetricsPartial(worst_n=worst_n)
    sample = ObservabilitySample(seed)
    answered: set[str] = set()
    unknown: set[str] = set()
    read_warnings: list[str] = []
    with ReportStream(output, head) as stream:
        for part in chunks:
            read_warnings.extend(part.warnings)
            answered.update(map(_PROBE_ID, part.responses))
            unknown |= answered - by_id.keys()
            if unknown:
                continue  # nothing more is written; every unknown id is listed at the end
            with stage("scoring"):  # the cases' JSON lines are rendered as they are scored
                cases, rendered = scorer.score_text(probes, part.responses, separator, prefix)
            with stage("metrics"):
                first = metrics.cases
                partial = metrics_partial(cases, worst_n=worst_n, first_index=first)
                metrics = metrics.merge(partial)
            with stage("observability"):
                sample.add(cases)
            with stage("write"):
                stream.add(rendered, len(cases), b"", 0)
        if unknown:
            raise unknown_probes_error(unknown)
        with stage("observability"):
            observability = observe_sample(sample, min_cases=min_cases)
        with stage("metrics"):
            missing = [p.id for p in probes if p.id not in answered]
            aggregate = finalize_metrics(metrics, missing_probe_ids=missing)
        with stage("report"):
            report, points, placed = report_end(
                head,
                aggregate,
                observability,
                warnings=read_warnings if warnings is None else warnings(read_warnings),
                gate=None if gate is None else gate(aggregate),
            )
        with stage("write"):
            stream.add(b"", 0, points, placed)
            stream.finish(report)
    return report


def build_provenance(
    probes: Sequence[Probe],
    *,
    detector: Detector,
    scoring: ScoringConfig,
    config: Mapping[str, Any] | None = None,
    created_at: datetime | None = None,
    sources: Mapping[str, Sequence[str]] | None = None,
    min_cases: int = 5,
    seed: int = 0,
    worst_n: int = 10,
) -> Provenance:
    """What a report was made from and with: tool, probe set, rules and every setting in force.

    Raises:
        ValueError: ``min_cases`` is below 1 or ``worst_n`` is negative.
    """
    if min_cases < 1:
        raise ValueError(f"min_cases must be >= 1, got {min_cases}")
    if worst_n < 0:
        raise ValueError(f"worst_n must be >= 0, got {worst_n}")
    settings: dict[str, Any] = {
        "scoring": scoring.model_dump(mode="json"),
        "observability": {"min_cases": min_cases, "seed": seed},
        "worst_n": worst_n,
    }
    settings.update(config or {})
    return Provenance(
        tool_version=__version__,
        created_at=created_at or datetime.now(UTC),
        probe_set_hash=probe_set_hash(probes),
        probe_count=len(probes),
        rule_set_hash=detector.digest,
        rule_packs=list(detector.pack_names),
        config=settings,
        sources={k: list(v) for k, v in (sources or {}).items()},
    )
