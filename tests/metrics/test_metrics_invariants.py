"""Hypothesis invariants of ``aggregate_metrics`` over random runs."""

from __future__ import annotations

import math
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from tests.metrics.conftest import CaseFactory

from trustprobe.metrics import ConfidenceInterval, RunMetrics, aggregate_metrics

Spec = dict[str, Any]

CATEGORIES = ("injection", "privacy", "harmful", "over_refusal")
SEVERITIES = ("low", "medium", "high", "critical")


@st.composite
def outcomes(draw: st.DrawFn) -> dict[str, object]:
    """One sample's outcome: a harness error or a verdict with its evidence."""
    if draw(st.integers(0, 5)) == 0:
        return {"error": draw(st.sampled_from(["timeout", "http_503", "connection"]))}
    risk = draw(st.floats(0.0, 1.0, allow_nan=False))
    return {
        "risk": risk,
        "passed": risk < 0.5,
        "safe_hits": draw(st.integers(0, 3)),
        "unsafe_hits": draw(st.integers(0, 3)),
        "boundary": draw(st.none() | st.booleans()),
        "modes": draw(st.lists(st.sampled_from(["leak", "agency", "over_refusal"]), max_size=2)),
    }


@st.composite
def runs(draw: st.DrawFn, max_probes: int = 8) -> list[Spec]:
    """Factory arguments for cases of distinct probes, 1–3 samples each, sharing labels."""
    cases: list[Spec] = []
    for index in range(draw(st.integers(0, max_probes))):
        labels = {
            "category": draw(st.sampled_from(CATEGORIES)),
            "severity": draw(st.sampled_from(SEVERITIES)),
            "expected": draw(st.sampled_from(["refuse", "comply"])),
        }
        for sample in range(draw(st.integers(1, 3))):
            cases.append({"probe_id": f"p{index}", "sample": sample, **labels, **draw(outcomes())})
    return cases


def _rates(metrics: RunMetrics) -> list[float | None]:
    o = metrics.overall
    rates = [
        o.pass_rate, o.fail_rate, o.severity_weighted_pass_rate, o.high_critical_share_of_failures,
        o.boundary_language_rate, o.harness_error_rate, metrics.indices.resilience_index,
        metrics.indices.exposure_index,
    ]  # fmt: skip
    for row in [*metrics.by_category.values(), *metrics.by_severity.values()]:
        rates.append(row.pass_rate)
    for row in metrics.by_expected.values():
        rates.append(row.pass_rate)
    for c in metrics.by_category.values():
        rates += [c.boundary_rate, c.risk_mean, c.weighted_risk_mean]
    if metrics.flakiness is not None:
        rates.append(metrics.flakiness.overall.flaky_rate)
    return rates


def _intervals(metrics: RunMetrics) -> list[tuple[float | None, ConfidenceInterval | None]]:
    rows = [*metrics.by_category.values(), *metrics.by_severity.values()]
    rows += list(metrics.by_expected.values())
    pairs = [(r.pass_rate, r.pass_rate_ci) for r in rows]
    o = metrics.overall
    return [
        (o.pass_rate, o.pass_rate_ci),
        (o.high_critical_share_of_failures, o.high_critical_share_of_failures_ci),
        *pairs,
    ]


@settings(max_examples=60)
@given(specs=runs())
def test_rates_bounds_counts_and_indices(make_case: CaseFactory, specs: list[Spec]) -> None:
    metrics = aggregate_metrics([make_case(**spec) for spec in specs])
    for rate in _rates(metrics):
        assert rate is None or 0.0 <= rate <= 1.0
    for rate, ci in _intervals(metrics):
        assert (rate is None) == (ci is None)  # an interval exactly where there is a rate
        if rate is not None and ci is not None:
            assert 0.0 <= ci.lower <= rate <= ci.upper <= 1.0

    counts = metrics.counts
    assert counts.passed + counts.failed == counts.scored_cases
    assert counts.scored_cases + counts.harness_errors == counts.cases == len(specs)
    assert sum(counts.harness_errors_by_class.values()) == counts.harness_errors

    indices = metrics.indices
    if indices.exposure_index is None:
        assert indices.resilience_index is None
    else:
        assert indices.resilience_index is not None
        assert math.isclose(indices.resilience_index + indices.exposure_index, 1.0, abs_tol=1e-12)
    _check_index_intervals(metrics)


def _check_index_intervals(metrics: RunMetrics) -> None:
    """Exposure interval from 2 scored cases on, containing the index; resilience its mirror."""
    indices = metrics.indices
    exposure, resilience = indices.exposure_index_ci, indices.resilience_index_ci
    assert (exposure is None) == (metrics.counts.scored_cases < 2)
    assert (resilience is None) == (exposure is None)
    if exposure is None or resilience is None:
        return
    assert indices.exposure_index is not None and indices.resilience_index is not None
    assert 0.0 <= exposure.lower <= indices.exposure_index <= exposure.upper <= 1.0
    assert 0.0 <= resilience.lower <= indices.resilience_index <= resilience.upper <= 1.0
    assert (resilience.lower, resilience.upper) == (1.0 - exposure.upper, 1.0 - exposure.lower)
    assert exposure.confidence == resilience.confidence == 0.95


@settings(max_examples=40)
@given(specs=runs(), rnd=st.randoms(use_true_random=False))
def test_case_order_does_not_matter(
    make_case: CaseFactory, specs: list[Spec], rnd: random.Random
) -> None:
    cases = [make_case(**spec) for spec in specs]
    shuffled = list(cases)
    rnd.shuffle(shuffled)
    assert aggregate_metrics(shuffled) == aggregate_metrics(cases)


@settings(max_examples=40)
@given(
    specs=runs(),
    error_classes=st.lists(st.sampled_from(["timeout", "http_429"]), min_size=1, max_size=5),
)
def test_adding_harness_errors_never_changes_pass_rates(
    make_case: CaseFactory, specs: list[Spec], error_classes: list[str]
) -> None:
    cases = [make_case(**spec) for spec in specs]
    before = aggregate_metrics(cases)
    extra = [
        make_case(f"err{i}", category=CATEGORIES[i % 4], severity=SEVERITIES[i % 4], error=e)
        for i, e in enumerate(error_classes)
    ]
    after = aggregate_metrics([*cases, *extra])
    assert after.overall.pass_rate == before.overall.pass_rate
    assert after.overall.pass_rate_ci == before.overall.pass_rate_ci
    assert after.overall.severity_weighted_pass_rate == before.overall.severity_weighted_pass_rate
    for name, row in before.by_severity.items():
        assert after.by_severity[name].pass_rate == row.pass_rate
    for name, row in before.by_category.items():
        assert after.by_category[name].pass_rate == row.pass_rate
    assert after.counts.harness_errors == before.counts.harness_errors + len(error_classes)
