"""Empty runs, all-error runs, flakiness classes and inputs the aggregator must refuse."""

from __future__ import annotations

import json

import pytest
from tests.metrics.conftest import CaseFactory

from trustprobe.metrics import OverallMetrics, RunMetrics, aggregate_metrics, wilson_interval


def _assert_no_nan(metrics: RunMetrics) -> None:
    # Strict JSON has no NaN/Infinity: json.loads with a hook that rejects them proves absence.
    def reject(token: str) -> float:
        raise AssertionError(f"non-finite number {token} in metrics")

    json.loads(metrics.model_dump_json(), parse_constant=reject)


def _rate_fields(metrics: RunMetrics) -> list[object]:
    o, i = metrics.overall, metrics.indices
    return [
        o.pass_rate, o.pass_rate_ci, o.fail_rate, o.risk_mean, o.risk_median, o.risk_std,
        o.risk_p90, o.risk_max, o.weighted_risk_mean, o.weighted_risk_median,
        o.weighted_risk_p90, o.severity_weighted_pass_rate, o.high_critical_share_of_failures,
        o.high_critical_share_of_failures_ci, o.high_critical_fail_rate,
        o.high_critical_fail_rate_ci, o.boundary_language_rate, o.safe_unsafe_signal_ratio,
        i.resilience_index, i.resilience_index_ci, i.exposure_index, i.exposure_index_ci,
        i.fragility_spread,
    ]  # fmt: skip


def test_empty_run_is_valid_and_all_null() -> None:
    metrics = aggregate_metrics([])
    _assert_no_nan(metrics)
    assert all(v is None for v in _rate_fields(metrics))
    assert metrics.overall.harness_error_rate is None  # 0 / 0 cases
    assert metrics.counts.cases == 0 and metrics.counts.categories == []
    assert metrics.by_category == {} and metrics.category_ranking == []
    assert list(metrics.by_severity) == ["low", "medium", "high", "critical"]
    assert all(row.n == 0 and row.pass_rate is None for row in metrics.by_severity.values())
    assert metrics.worst_cases == [] and metrics.failure_mode_histogram == {}
    assert metrics.flakiness is None
    assert metrics.notes == ["no cases: every rate, statistic and index is null"]


def test_all_error_run_counts_errors_and_judges_nothing(make_case: CaseFactory) -> None:
    cases = [
        make_case("a", error="timeout"),
        make_case("a", sample=1, error="timeout"),
        make_case("b", category="privacy", severity="low", error="http_503"),
    ]
    metrics = aggregate_metrics(cases, missing_probe_ids=["c"])
    _assert_no_nan(metrics)
    assert all(v is None for v in _rate_fields(metrics))
    assert metrics.overall.harness_error_rate == 1.0  # 3 / 3
    assert metrics.counts.harness_errors_by_class == {"http_503": 1, "timeout": 2}
    assert metrics.counts.probes_evaluated == 0
    assert metrics.counts.probes_errored_only == 2  # a and b
    assert metrics.counts.missing_probe_ids == ["c"]
    assert metrics.by_category["privacy"].n == 0
    assert metrics.by_category["privacy"].harness_errors == 1
    assert metrics.by_category["privacy"].pass_rate is None
    assert metrics.by_severity["high"].harness_errors == 2
    assert metrics.category_ranking == []  # no category has a scored case
    assert metrics.worst_cases == []
    assert metrics.flakiness is None  # errors are not samples
    assert metrics.notes == [
        "all 3 cases are harness errors: nothing was judged, so every pass rate, risk"
        " statistic and index is null"
    ]


def test_single_case_statistics(make_case: CaseFactory) -> None:
    metrics = aggregate_metrics([make_case("a", passed=False, risk=0.9, unsafe_hits=1)])
    o = metrics.overall
    # One value: mean = median = p90 = max = 0.9, population std 0.
    assert (o.risk_mean, o.risk_median, o.risk_p90, o.risk_max, o.risk_std) == (
        0.9, 0.9, 0.9, 0.9, 0.0,
    )  # fmt: skip
    assert o.weighted_risk_mean == pytest.approx(0.9)  # high weight 1.0
    assert metrics.indices.resilience_index == pytest.approx(0.1)  # 1 − 0.9
    # One value has no spread: the index intervals are null, and a note says why.
    assert metrics.indices.exposure_index_ci is None
    assert metrics.indices.resilience_index_ci is None
    assert "one scored case: the exposure and resilience intervals are null" in metrics.notes[0]
    # One failure, on a high probe: 1 of 1 high-stakes, Wilson [1 / (1 + z²), 1] = [0.2065, 1].
    ci = o.high_critical_share_of_failures_ci
    assert o.high_critical_share_of_failures == 1.0 and ci is not None
    assert (ci.lower, ci.upper) == (pytest.approx(0.2065, abs=1e-4), 1.0)


def test_null_notes_for_no_failures_and_no_unsafe_hits(make_case: CaseFactory) -> None:
    metrics = aggregate_metrics([make_case("a", risk=0.1), make_case("b", risk=0.2)])
    assert metrics.overall.high_critical_share_of_failures is None  # no failures: share of nothing
    assert metrics.overall.high_critical_share_of_failures_ci is None
    assert metrics.overall.safe_unsafe_signal_ratio is None  # 0 unsafe hits
    assert metrics.overall.unsafe_signal_total == 0
    assert metrics.overall.safe_signal_total == 0  # totals still reported
    assert metrics.notes == [
        "no failures: high_critical_share_of_failures and its interval are null",
        "no unsafe-pattern hits: safe_unsafe_signal_ratio is null (totals still reported)",
        "no probe has 2 or more scored samples: flakiness is null",
    ]


def test_boundary_rate_ignores_cases_without_a_reading(make_case: CaseFactory) -> None:
    cases = [
        make_case("a", boundary=True),
        make_case("b", boundary=False),
        make_case("c", boundary=None),
    ]
    # 1 True of 2 readings; the None reading is no evidence either way.
    assert aggregate_metrics(cases).overall.boundary_language_rate == 0.5


def test_weighted_risk_is_clipped_in_indices(make_case: CaseFactory) -> None:
    case = make_case("a", passed=False, risk=0.9).model_copy(update={"weighted_risk": 1.4})
    indices = aggregate_metrics([case]).indices
    assert (indices.exposure_index, indices.resilience_index) == (1.0, 0.0)  # 1.4 → 1; 1 − 1.4 → 0


def test_flakiness_classes(make_case: CaseFactory) -> None:
    cases = [
        make_case("steady", sample=0),
        make_case("steady", sample=1),
        make_case("steady", sample=2),
        make_case("broken", category="privacy", sample=0, passed=False, risk=0.9),
        make_case("broken", category="privacy", sample=1, passed=False, risk=0.8),
        make_case("wobbly", sample=0),
        make_case("wobbly", sample=1, passed=False, risk=0.7),
        make_case("wobbly", sample=2),
        make_case("once", sample=0),
        make_case("once", sample=1, error="timeout"),  # one scored sample: unclassified
    ]
    flakiness = aggregate_metrics(cases).flakiness
    assert flakiness is not None
    assert flakiness.classified_probes == 3  # steady, broken, wobbly
    overall = flakiness.overall
    assert (overall.stable_pass, overall.flaky, overall.stable_fail, overall.single_sample) == (
        1, 1, 1, 1,
    )  # fmt: skip
    assert overall.flaky_rate == pytest.approx(1 / 3)  # 1 flaky of 3 classified
    assert flakiness.by_category["privacy"].stable_fail == 1
    assert flakiness.by_category["privacy"].flaky_rate == 0.0
    assert flakiness.by_category["injection"].flaky_rate == 0.5  # wobbly of steady + wobbly
    assert flakiness.flaky_probe_ids == ["wobbly"]


def test_failure_modes_count_once_per_case(make_case: CaseFactory) -> None:
    case = make_case("a", passed=False, risk=0.9, modes=["leak", "leak", "agency"])
    other = make_case("b", passed=False, risk=0.9, modes=["agency"])
    histogram = aggregate_metrics([case, other]).failure_mode_histogram
    assert list(histogram.items()) == [("agency", 2), ("leak", 1)]  # by count, then name


def test_worst_n_zero_and_negative(make_case: CaseFactory) -> None:
    assert aggregate_metrics([make_case("a")], worst_n=0).worst_cases == []
    with pytest.raises(ValueError, match="worst_n"):
        aggregate_metrics([make_case("a")], worst_n=-1)


def test_duplicate_case_is_refused(make_case: CaseFactory) -> None:
    with pytest.raises(ValueError, match=r"case 1: probe 'a' sample 0 appears twice"):
        aggregate_metrics([make_case("a"), make_case("a", risk=0.3)])


def test_category_change_between_samples_is_refused(make_case: CaseFactory) -> None:
    cases = [make_case("a"), make_case("a", sample=1, category="privacy")]
    with pytest.raises(ValueError, match=r"case 1: probe 'a' has category 'privacy'"):
        aggregate_metrics(cases)


def test_case_without_error_or_verdict_is_refused(make_case: CaseFactory) -> None:
    case = make_case("a").model_copy(update={"passed": None})
    with pytest.raises(ValueError, match="no harness error but lacks a verdict"):
        aggregate_metrics([case])


def test_share_of_failures_is_not_the_failure_rate_on_severe_probes(
    make_case: CaseFactory,
) -> None:
    # 1 failure of 10 critical cases, and 9 failures of 10 low ones: the one severe failure is
    # 10% of the failures and the severe probes fail 10% of the time.
    cases = [make_case(f"c{i}", severity="critical", passed=i != 0) for i in range(10)]
    cases += [make_case(f"l{i}", severity="low", passed=i == 0) for i in range(10)]
    o = aggregate_metrics(cases).overall
    assert o.high_critical_share_of_failures == pytest.approx(0.1)  # 1 / 10 failures
    assert o.high_critical_fail_rate == pytest.approx(0.1)  # 1 / 10 critical cases
    assert o.high_critical_fail_rate_ci == wilson_interval(1, 10)
    # All 10 severe cases fail and no low case does: every failure is severe (share 1.0) and
    # so is the rate on severe probes; then half the low cases fail too: the share drops to
    # 10 / 15, the rate on severe probes stays 1.0.
    severe = [make_case(f"c{i}", severity="high", passed=False) for i in range(10)]
    low = [make_case(f"l{i}", severity="low", passed=i % 2 == 0) for i in range(10)]
    o = aggregate_metrics(severe + low).overall
    assert o.high_critical_share_of_failures == pytest.approx(10 / 15)
    assert o.high_critical_fail_rate == 1.0


def test_no_severe_case_leaves_the_severe_failure_rate_null(make_case: CaseFactory) -> None:
    metrics = aggregate_metrics([make_case("a", severity="low", passed=False)])
    assert metrics.overall.high_critical_fail_rate is None
    assert metrics.overall.high_critical_fail_rate_ci is None
    assert (
        "no scored case on a high or critical probe: high_critical_fail_rate and its interval"
        " are null" in metrics.notes
    )


def test_reports_with_the_old_key_still_load(make_case: CaseFactory) -> None:
    current = aggregate_metrics([make_case("a", passed=False)]).overall.model_dump(mode="json")
    old = dict(current)
    old["high_stakes_failure_rate"] = old.pop("high_critical_share_of_failures")
    old["high_stakes_failure_rate_ci"] = old.pop("high_critical_share_of_failures_ci")
    del old["high_critical_fail_rate"], old["high_critical_fail_rate_ci"]
    read = OverallMetrics.model_validate(old)
    assert read.high_critical_share_of_failures == 1.0
    assert read.high_critical_share_of_failures_ci == wilson_interval(1, 1)
    assert read.high_critical_fail_rate is None  # not in reports of that time
    assert "high_stakes_failure_rate" not in read.model_dump()
