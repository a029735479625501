"""``aggregate_metrics``: scored cases in, every run-level metric of the seed out."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np

from trustprobe.metrics.flakiness import ProbeVerdicts, classify_flakiness
from trustprobe.metrics.intervals import wilson_interval
from trustprobe.metrics.models import (
    CategoryMetrics,
    CategoryRank,
    CompositeIndices,
    OverallMetrics,
    PassRateRow,
    RunCounts,
    RunMetrics,
    WorstCase,
)
from trustprobe.probes.models import Expected, Severity
from trustprobe.scoring.models import CaseScore

_HIGH_STAKES = frozenset({Severity.CRITICAL, Severity.HIGH})
# Percentiles use numpy's default linear interpolation between closest ranks; named here so a
# change of numpy default can never change a published figure.
_PERCENTILE_METHOD: Final = "linear"


@dataclass(frozen=True)
class _Scored:
    """A case with a verdict, its optional fields narrowed to values."""

    case: CaseScore
    passed: bool
    risk: float
    weighted: float


@dataclass(frozen=True)
class _Stats:
    """Summary statistics of one sample; every field ``None`` when the sample is empty."""

    mean: float | None = None
    median: float | None = None
    std: float | None = None
    p90: float | None = None
    max: float | None = None


def _stats(values: Iterable[float]) -> _Stats:
    # Sorting first makes every figure independent of case order, to the last bit.
    data = np.sort(np.fromiter(values, dtype=np.float64))
    if data.size == 0:
        return _Stats()  # no scored case: a statistic of nothing is not 0
    return _Stats(
        mean=float(np.mean(data)),
        median=float(np.median(data)),
        std=float(np.std(data, ddof=0)),
        p90=float(np.percentile(data, 90, method=_PERCENTILE_METHOD)),
        max=float(data[-1]),
    )


def _ratio(numerator: float, denominator: float) -> float | None:
    # A rate over an empty group is undefined, not 0.
    return numerator / denominator if denominator else None


def _mean(values: Iterable[float]) -> float | None:
    return _stats(values).mean


def _clip01(value: float | None) -> float | None:
    return None if value is None else min(max(value, 0.0), 1.0)


def _split(cases: Sequence[CaseScore]) -> tuple[list[_Scored], list[CaseScore]]:
    """Separate scored cases from harness errors, rejecting inconsistent input."""
    scored: list[_Scored] = []
    errors: list[CaseScore] = []
    seen: set[tuple[str, int]] = set()
    category_of: dict[str, str] = {}
    for index, case in enumerate(cases):
        key = (case.probe_id, case.sample)
        if key in seen:
            raise ValueError(
                f"case {index}: probe '{case.probe_id}' sample {case.sample} appears twice;"
                " each (probe_id, sample) must be scored once"
            )
        seen.add(key)
        known = category_of.setdefault(case.probe_id, case.category)
        if known != case.category:
            raise ValueError(
                f"case {index}: probe '{case.probe_id}' has category '{case.category}'"
                f" but an earlier sample has '{known}'"
            )
        if case.error is not None:
            errors.append(case)
            continue
        if case.passed is None or case.risk_score is None or case.weighted_risk is None:
            raise ValueError(
                f"case {index}: probe '{case.probe_id}' sample {case.sample} has no harness error"
                " but lacks a verdict (passed, risk_score and weighted_risk must be set)"
            )
        scored.append(_Scored(case, case.passed, case.risk_score, case.weighted_risk))
    return scored, errors


def _pass_row(scored: Sequence[_Scored], harness_errors: int) -> PassRateRow:
    passed = sum(s.passed for s in scored)
    return PassRateRow(
        n=len(scored),
        harness_errors=harness_errors,
        passed=passed,
        failed=len(scored) - passed,
        pass_rate=_ratio(passed, len(scored)),
        pass_rate_ci=wilson_interval(passed, len(scored)),
    )


def _boundary_rate(scored: Sequence[_Scored]) -> float | None:
    # A scored case whose detector gave no reading (None) is no evidence either way.
    readings = [s.case.boundary_or_refusal_signal for s in scored]
    known = [r for r in readings if r is not None]
    return _ratio(sum(known), len(known))


def _category_row(scored: Sequence[_Scored], harness_errors: int) -> CategoryMetrics:
    row = _pass_row(scored, harness_errors)
    risk = _stats(s.risk for s in scored)
    failures = [s.case.severity for s in scored if not s.passed]
    return CategoryMetrics(
        n=row.n,
        harness_errors=harness_errors,
        passed=row.passed,
        failed=row.failed,
        pass_rate=row.pass_rate,
        pass_rate_ci=row.pass_rate_ci,
        risk_mean=risk.mean,
        risk_median=risk.median,
        weighted_risk_mean=_mean(s.weighted for s in scored),
        critical_failures=failures.count(Severity.CRITICAL),
        high_failures=failures.count(Severity.HIGH),
        safe_signal_hits_mean=_mean(s.case.safe_signal_hits for s in scored),
        unsafe_signal_hits_mean=_mean(s.case.unsafe_signal_hits for s in scored),
        boundary_rate=_boundary_rate(scored),
    )


def _overall(scored: Sequence[_Scored], cases: int, harness_errors: int) -> OverallMetrics:
    passed = sum(s.passed for s in scored)
    failed = len(scored) - passed
    risk = _stats(s.risk for s in scored)
    weighted = _stats(s.weighted for s in scored)
    # fsum is exactly rounded, so the weighted rate does not depend on case order.
    weight_total = math.fsum(s.case.severity_weight for s in scored)
    weight_passed = math.fsum(s.case.severity_weight for s in scored if s.passed)
    safe_total = sum(s.case.safe_signal_hits for s in scored)
    unsafe_total = sum(s.case.unsafe_signal_hits for s in scored)
    high_stakes = sum(1 for s in scored if not s.passed and s.case.severity in _HIGH_STAKES)
    return OverallMetrics(
        pass_rate=_ratio(passed, len(scored)),
        pass_rate_ci=wilson_interval(passed, len(scored)),
        fail_rate=_ratio(failed, len(scored)),
        risk_mean=risk.mean,
        risk_median=risk.median,
        risk_std=risk.std,
        risk_p90=risk.p90,
        risk_max=risk.max,
        weighted_risk_mean=weighted.mean,
        weighted_risk_median=weighted.median,
        weighted_risk_p90=weighted.p90,
        severity_weighted_pass_rate=_ratio(weight_passed, weight_total),
        high_stakes_failure_rate=_ratio(high_stakes, failed),
        boundary_language_rate=_boundary_rate(scored),
        safe_signal_total=safe_total,
        unsafe_signal_total=unsafe_total,
        # No unsafe hit at all: the ratio would divide by zero, so it is null by the seed's rule.
        safe_unsafe_signal_ratio=_ratio(safe_total, unsafe_total),
        harness_error_rate=_ratio(harness_errors, cases),
    )


def _notes(counts: RunCounts, overall: OverallMetrics, flaky_none: bool) -> list[str]:
    notes: list[str] = []
    if counts.cases == 0:
        notes.append("no cases: every rate, statistic and index is null")
    elif counts.scored_cases == 0:
        notes.append(
            f"all {counts.cases} cases are harness errors: nothing was judged, so every pass"
            " rate, risk statistic and index is null"
        )
    else:
        if counts.failed == 0:
            notes.append("no failures: high_stakes_failure_rate is null")
        if overall.boundary_language_rate is None:
            notes.append("no boundary-language reading on any scored case: rate is null")
    if counts.scored_cases and overall.unsafe_signal_total == 0:
        notes.append(
            "no unsafe-pattern hits: safe_unsafe_signal_ratio is null (totals still reported)"
        )
    if flaky_none and counts.scored_cases:
        notes.append("no probe has 2 or more scored samples: flakiness is null")
    return notes


def aggregate_metrics(
    cases: Sequence[CaseScore],
    *,
    missing_probe_ids: Sequence[str] = (),
    worst_n: int = 10,
) -> RunMetrics:
    """Aggregate scored cases into run metrics (docs/metrics.md).

    Harness-error cases (``error`` set) are counted, never judged: they are left out of every
    rate and risk statistic.

    Args:
        cases: One ``CaseScore`` per response; several may share a probe with distinct samples.
        missing_probe_ids: Probes of the probe set that received no response.
        worst_n: How many cases to list under ``worst_cases``.

    Raises:
        ValueError: ``worst_n`` is negative, a (probe_id, sample) repeats, a probe changes
            category between samples, or a case without a harness error lacks a verdict.
    """
    if worst_n < 0:
        raise ValueError(f"worst_n must be >= 0, got {worst_n}")
    scored, errors = _split(cases)

    error_categories = Counter(c.category for c in errors)
    error_severities = Counter(c.severity for c in errors)
    error_expected = Counter(c.expected for c in errors)
    categories = sorted({c.category for c in cases})
    scored_probes = {s.case.probe_id for s in scored}
    category_of_probe = {c.probe_id: c.category for c in cases}
    counts = RunCounts(
        cases=len(cases),
        scored_cases=len(scored),
        probes_evaluated=len(scored_probes),
        probes_errored_only=len({c.probe_id for c in errors} - scored_probes),
        passed=sum(s.passed for s in scored),
        failed=sum(not s.passed for s in scored),
        harness_errors=len(errors),
        harness_errors_by_class=dict(sorted(Counter(str(c.error) for c in errors).items())),
        missing_probes=len(set(missing_probe_ids)),
        missing_probe_ids=sorted(set(missing_probe_ids)),
        categories_present=len(categories),
        categories=categories,
    )
    overall = _overall(scored, len(cases), len(errors))
    mean_weighted = overall.weighted_risk_mean

    groups: dict[tuple[str, str], list[_Scored]] = {}
    for s in scored:
        for key in (
            ("category", s.case.category),
            ("severity", s.case.severity.value),
            ("expected", s.case.expected.value),
        ):
            groups.setdefault(key, []).append(s)
    by_category = {
        name: _category_row(groups.get(("category", name), []), error_categories[name])
        for name in categories
    }
    by_severity = {
        tier.value: _pass_row(groups.get(("severity", tier.value), []), error_severities[tier])
        for tier in Severity
    }
    by_expected = {
        kind.value: _pass_row(groups.get(("expected", kind.value), []), error_expected[kind])
        for kind in Expected
    }

    # A mode counts once per case even if a buggy scorer listed it twice.
    modes = Counter(mode for s in scored for mode in set(s.case.detected_failure_modes))
    histogram = dict(sorted(modes.items(), key=lambda item: (-item[1], item[0])))

    ranked = sorted(scored, key=lambda s: (-s.weighted, s.case.probe_id, s.case.sample))
    worst = [
        WorstCase(
            probe_id=s.case.probe_id,
            sample=s.case.sample,
            category=s.case.category,
            severity=s.case.severity.value,
            passed=s.passed,
            risk_score=s.risk,
            weighted_risk=s.weighted,
            explanation=s.case.explanation,
        )
        for s in ranked[:worst_n]
    ]
    ranking = sorted(
        (
            CategoryRank(category=name, risk_mean=row.risk_mean, n=row.n)
            for name, row in by_category.items()
            if row.risk_mean is not None
        ),
        key=lambda rank: (-rank.risk_mean, rank.category),
    )

    verdicts: dict[str, list[bool]] = {}
    for s in scored:
        verdicts.setdefault(s.case.probe_id, []).append(s.passed)
    flakiness = classify_flakiness(
        {
            probe_id: ProbeVerdicts(category=category_of_probe[probe_id], verdicts=tuple(v))
            for probe_id, v in verdicts.items()
        }
    )

    return RunMetrics(
        counts=counts,
        overall=overall,
        indices=CompositeIndices(
            resilience_index=_clip01(None if mean_weighted is None else 1.0 - mean_weighted),
            exposure_index=_clip01(mean_weighted),
            fragility_spread=overall.risk_std,
        ),
        by_category=by_category,
        by_severity=by_severity,
        by_expected=by_expected,
        failure_mode_histogram=histogram,
        worst_cases=worst,
        category_ranking=ranking,
        flakiness=flakiness,
        notes=_notes(counts, overall, flakiness is None),
    )
