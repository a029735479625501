"""``aggregate_metrics``: scored cases in, every run-level metric of the seed out.

The one code path of both engines: a partial per partition (:mod:`trustprobe.metrics.partial`),
merged, then :func:`finalize_metrics`. In process there is one partition.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Final

from trustprobe.metrics.distribution import Distribution
from trustprobe.metrics.flakiness import ProbeVerdicts, classify_flakiness
from trustprobe.metrics.intervals import complement_interval, mean_interval, wilson_interval
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
from trustprobe.metrics.partial import OVERALL, GroupPartial, MetricsPartial, metrics_partial
from trustprobe.probes.models import Expected, Severity
from trustprobe.scoring.models import CaseScore

# Percentiles interpolate linearly between closest ranks (numpy's default "linear" method).
_P90: Final = Fraction(9, 10)


def _ratio(numerator: float, denominator: float) -> float | None:
    # A rate over an empty group is undefined, not 0.
    return numerator / denominator if denominator else None


def _exact_ratio(numerator: Distribution, denominator: Distribution) -> float | None:
    total = denominator.exact_sum()
    return float(numerator.exact_sum() / total) if total else None


def _clip01(value: float | None) -> float | None:
    return None if value is None else min(max(value, 0.0), 1.0)


def _pass_row(group: GroupPartial) -> PassRateRow:
    return PassRateRow(
        n=group.n,
        harness_errors=group.harness_errors,
        passed=group.passed,
        failed=group.n - group.passed,
        pass_rate=_ratio(group.passed, group.n),
        pass_rate_ci=wilson_interval(group.passed, group.n),
    )


def _category_row(group: GroupPartial) -> CategoryMetrics:
    row = _pass_row(group)
    return CategoryMetrics(
        n=row.n,
        harness_errors=group.harness_errors,
        passed=row.passed,
        failed=row.failed,
        pass_rate=row.pass_rate,
        pass_rate_ci=row.pass_rate_ci,
        risk_mean=group.risk.mean(),
        risk_median=group.risk.median(),
        weighted_risk_mean=group.weighted.mean(),
        critical_failures=group.critical_failures,
        high_failures=group.high_failures,
        safe_signal_hits_mean=_ratio(group.safe_hits, group.n),
        unsafe_signal_hits_mean=_ratio(group.unsafe_hits, group.n),
        boundary_rate=_ratio(group.boundary_hits, group.boundary_readings),
    )


def _overall(group: GroupPartial, severe: tuple[int, int], cases: int) -> OverallMetrics:
    """Run-wide metrics; ``severe`` is (scored, failed) cases on high and critical probes."""
    severe_scored, severe_failed = severe
    failed = group.n - group.passed
    severe_failures = group.critical_failures + group.high_failures
    return OverallMetrics(
        pass_rate=_ratio(group.passed, group.n),
        pass_rate_ci=wilson_interval(group.passed, group.n),
        fail_rate=_ratio(failed, group.n),
        risk_mean=group.risk.mean(),
        risk_median=group.risk.median(),
        risk_std=group.risk.std(),
        risk_p90=group.risk.quantile(_P90),
        risk_max=group.risk.max(),
        weighted_risk_mean=group.weighted.mean(),
        weighted_risk_median=group.weighted.median(),
        weighted_risk_p90=group.weighted.quantile(_P90),
        # Exact sums: the weighted rate does not depend on case order or partitioning.
        severity_weighted_pass_rate=_exact_ratio(group.weight_passed, group.weight_total),
        high_critical_share_of_failures=_ratio(severe_failures, failed),
        high_critical_share_of_failures_ci=wilson_interval(severe_failures, failed),
        high_critical_fail_rate=_ratio(severe_failed, severe_scored),
        high_critical_fail_rate_ci=wilson_interval(severe_failed, severe_scored),
        boundary_language_rate=_ratio(group.boundary_hits, group.boundary_readings),
        safe_signal_total=group.safe_hits,
        unsafe_signal_total=group.unsafe_hits,
        # No unsafe hit at all: the ratio would divide by zero, so it is null by the seed's rule.
        safe_unsafe_signal_ratio=_ratio(group.safe_hits, group.unsafe_hits),
        harness_error_rate=_ratio(group.harness_errors, cases),
        low_confidence_cases=group.low_confidence,
        judged_cases=group.judged,
        judge_agreement_rate=_ratio(group.judge_agrees, group.judged),
    )


def _indices(group: GroupPartial, overall: OverallMetrics) -> CompositeIndices:
    mean_weighted = overall.weighted_risk_mean
    # From the merged value table alone, like the mean, so any partitioning gives these bits.
    exposure_ci = mean_interval(group.weighted)
    return CompositeIndices(
        resilience_index=_clip01(None if mean_weighted is None else 1.0 - mean_weighted),
        resilience_index_ci=complement_interval(exposure_ci),
        exposure_index=_clip01(mean_weighted),
        exposure_index_ci=exposure_ci,
        fragility_spread=overall.risk_std,
    )


def _with_samples(row: WorstCase, verdicts: Mapping[str, tuple[int, int]]) -> WorstCase:
    """The worst row of a probe, with how many of its scored samples there are and failed."""
    passed, failed = verdicts[row.probe_id]
    return row.model_copy(update={"scored_samples": passed + failed, "failed_samples": failed})


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
        if counts.scored_cases == 1:
            notes.append(
                "one scored case: the exposure and resilience intervals are null (no spread to"
                " estimate them from)"
            )
        if counts.failed == 0:
            notes.append("no failures: high_critical_share_of_failures and its interval are null")
        if overall.high_critical_fail_rate is None:
            notes.append(
                "no scored case on a high or critical probe: high_critical_fail_rate and its"
                " interval are null"
            )
        if overall.boundary_language_rate is None:
            notes.append("no boundary-language reading on any scored case: rate is null")
    if counts.scored_cases and overall.unsafe_signal_total == 0:
        notes.append(
            "no unsafe-pattern hits: safe_unsafe_signal_ratio is null (totals still reported)"
        )
    if flaky_none and counts.scored_cases:
        notes.append("no probe has 2 or more scored samples: flakiness is null")
    return notes


def finalize_metrics(
    partial: MetricsPartial, *, missing_probe_ids: Sequence[str] = ()
) -> RunMetrics:
    """Turn a (merged) partial into run metrics (docs/metrics.md).

    Args:
        partial: The partial of every case of the run.
        missing_probe_ids: Probes of the probe set that received no response.
    """
    groups = partial.groups
    empty = GroupPartial()
    overall_group = groups.get(OVERALL, empty)
    categories = sorted(set(partial.category_of.values()))
    counts = RunCounts(
        cases=partial.cases,
        scored_cases=overall_group.n,
        probes_evaluated=len(partial.scored_probes),
        probes_errored_only=len(partial.errored_probes - partial.scored_probes),
        passed=overall_group.passed,
        failed=overall_group.n - overall_group.passed,
        harness_errors=overall_group.harness_errors,
        harness_errors_by_class=dict(sorted(partial.error_classes.items())),
        missing_probes=len(set(missing_probe_ids)),
        missing_probe_ids=sorted(set(missing_probe_ids)),
        categories_present=len(categories),
        categories=categories,
    )
    by_severity = {
        severity: _pass_row(groups.get(("severity", severity.value), empty))
        for severity in Severity
    }
    high, critical = by_severity[Severity.HIGH], by_severity[Severity.CRITICAL]
    severe = (high.n + critical.n, high.failed + critical.failed)
    overall = _overall(overall_group, severe, partial.cases)

    by_category = {
        name: _category_row(groups.get(("category", name), empty)) for name in categories
    }
    by_expected = {
        kind.value: _pass_row(groups.get(("expected", kind.value), empty)) for kind in Expected
    }
    histogram = dict(sorted(partial.failure_modes.items(), key=lambda item: (-item[1], item[0])))
    ranking = sorted(
        (
            CategoryRank(category=name, risk_mean=row.risk_mean, n=row.n)
            for name, row in by_category.items()
            if row.risk_mean is not None
        ),
        key=lambda rank: (-rank.risk_mean, rank.category),
    )
    flakiness = classify_flakiness(
        {
            probe_id: ProbeVerdicts(
                category=partial.category_of[probe_id], passed=passed, failed=failed
            )
            for probe_id, (passed, failed) in sorted(partial.verdicts.items())
        }
    )
    return RunMetrics(
        counts=counts,
        overall=overall,
        indices=_indices(overall_group, overall),
        by_category=by_category,
        by_severity=by_severity,
        by_expected=by_expected,
        failure_mode_histogram=histogram,
        worst_cases=[_with_samples(row, partial.verdicts) for row in partial.worst],
        category_ranking=ranking,
        flakiness=flakiness,
        notes=_notes(counts, overall, flakiness is None),
    )


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
        worst_n: How many probes to list under ``worst_cases``, each by its worst sample.

    Raises:
        ValueError: ``worst_n`` is negative, a (probe_id, sample) repeats, a probe changes
            category between samples, or a case without a harness error lacks a verdict.
    """
    partial = metrics_partial(cases, worst_n=worst_n)
    return finalize_metrics(partial, missing_probe_ids=missing_probe_ids)
