"""Assemble a :class:`Report` from probes, responses and a rule set."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from trustprobe import __version__
from trustprobe.detectors import Detector
from trustprobe.metrics import aggregate_metrics
from trustprobe.observability import build_observability
from trustprobe.probes import Probe, probe_set_hash
from trustprobe.reports.models import Provenance, Report
from trustprobe.reports.target import ReportTarget
from trustprobe.responses import Response, check_known_probes
from trustprobe.scoring import Scorer, ScoringConfig


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
) -> Report:
    """Score every response, aggregate run metrics and map the failure geometry.

    A response for an unknown probe is an error (raised as ``InputError``); a probe without any
    response is reported as missing, never dropped.
    """
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
    cases = Scorer(detector, scoring).score_all(probes, responses)
    answered = {r.probe_id for r in responses}
    missing = [p.id for p in probes if p.id not in answered]
    return Report(
        provenance=provenance,
        target=target,
        cases=cases,
        aggregate_metrics=aggregate_metrics(cases, missing_probe_ids=missing, worst_n=worst_n),
        observability=build_observability(cases, min_cases=min_cases, seed=seed),
        warnings=list(warnings),
    )


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
