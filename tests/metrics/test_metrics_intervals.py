"""Wilson intervals against published values; Student-t intervals of a mean against scipy."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from trustprobe.metrics import ConfidenceInterval, Distribution, mean_interval, wilson_interval
from trustprobe.metrics.intervals import complement_interval

# Newcombe (1998), "Two-sided confidence intervals for the single proportion: comparison of
# seven methods", Statistics in Medicine 17:857-872, Table I, method 3 (Wilson score, no
# continuity correction), 95%: published to four decimals.
NEWCOMBE = [
    pytest.param(81, 263, 0.2553, 0.3662, id="81-of-263"),
    pytest.param(15, 148, 0.0624, 0.1605, id="15-of-148"),
    pytest.param(0, 20, 0.0, 0.1611, id="0-of-20"),
    pytest.param(1, 29, 0.0061, 0.1718, id="1-of-29"),
]


@pytest.mark.parametrize(("k", "n", "lower", "upper"), NEWCOMBE)
def test_matches_newcombe_reference(k: int, n: int, lower: float, upper: float) -> None:
    ci = wilson_interval(k, n)
    assert ci is not None
    assert ci.lower == pytest.approx(lower, abs=5e-5)
    assert ci.upper == pytest.approx(upper, abs=5e-5)
    assert ci.confidence == 0.95


def test_three_of_four_is_much_wider_than_three_hundred_of_four_hundred() -> None:
    small, large = wilson_interval(3, 4), wilson_interval(300, 400)
    assert small is not None and large is not None
    # Both rates are 0.75; z = 1.959964, centre (k + z²/2)/(n + z²), half-width below.
    # 3/4: centre (3 + 1.92073)/(4 + 3.84146) = 0.62754; half 0.32687 → [0.3006, 0.9544]
    assert (small.lower, small.upper) == pytest.approx((0.3006, 0.9544), abs=1e-4)
    # 300/400: centre 301.92073/403.84146 = 0.74762; half 0.04230 → [0.7053, 0.7899]
    assert (large.lower, large.upper) == pytest.approx((0.7053, 0.7899), abs=1e-4)


def test_all_successes_reach_one_exactly() -> None:
    ci = wilson_interval(29, 29)
    assert ci is not None
    assert ci.upper == 1.0
    assert ci.lower == pytest.approx(0.8830, abs=1e-4)  # mirror of 0/29: 1 − 0.1170


def test_no_trials_is_no_evidence() -> None:
    assert wilson_interval(0, 0) is None


def test_other_confidence_level_is_recorded_and_narrower() -> None:
    ninety = wilson_interval(81, 263, confidence=0.90)
    ninety_five = wilson_interval(81, 263)
    assert ninety is not None and ninety_five is not None
    assert ninety.confidence == 0.90
    assert ninety_five.lower < ninety.lower < ninety.upper < ninety_five.upper


@pytest.mark.parametrize(
    ("k", "n", "confidence"),
    [(-1, 5, 0.95), (6, 5, 0.95), (1, 5, 0.0), (1, 5, 1.0)],
    ids=["negative-successes", "more-successes-than-trials", "confidence-0", "confidence-1"],
)
def test_rejects_impossible_arguments(k: int, n: int, confidence: float) -> None:
    with pytest.raises(ValueError, match=r"successes|confidence"):
        wilson_interval(k, n, confidence=confidence)


@given(
    st.integers(min_value=1, max_value=5000).flatmap(
        lambda n: st.tuples(st.integers(0, n), st.just(n))
    )
)
def test_interval_is_within_unit_range_and_contains_the_rate(kn: tuple[int, int]) -> None:
    k, n = kn
    ci = wilson_interval(k, n)
    assert isinstance(ci, ConfidenceInterval)
    assert 0.0 <= ci.lower <= k / n <= ci.upper <= 1.0


@given(
    st.integers(min_value=1, max_value=10**7).flatmap(
        lambda n: st.tuples(st.integers(0, n), st.just(n))
    ),
    st.sampled_from([0.8, 0.9, 0.95, 0.99]),
)
def test_bounds_are_scipys_to_the_last_bit(kn: tuple[int, int], confidence: float) -> None:
    # The formula is SciPy's, written out without the p-value binomtest also computes.
    k, n = kn
    ci = wilson_interval(k, n, confidence=confidence)
    reference = stats.binomtest(k, n).proportion_ci(confidence_level=confidence, method="wilson")
    assert ci is not None
    assert (ci.lower, ci.upper) == (
        min(max(float(reference.low), 0.0), 1.0),
        min(max(float(reference.high), 0.0), 1.0),
    )


def _scipy_t_interval(values: list[float]) -> tuple[float, float]:
    """The reference: scipy's t interval around numpy's mean with the sample standard error."""
    low, high = stats.t.interval(
        0.95, len(values) - 1, loc=sum(values) / len(values), scale=stats.sem(values)
    )
    return max(float(low), 0.0), min(float(high), 1.0)


def test_mean_interval_by_hand() -> None:
    # 10 × 0.1 and 10 × 0.3: mean 0.2, s = √(20 × 0.01 / 19) = 0.1025978,
    # t(0.975, 19) = 2.0930241, half width 2.0930241 × 0.1025978 / √20 = 0.0480173.
    values = [0.1] * 10 + [0.3] * 10
    ci = mean_interval(Distribution.of(values))
    assert ci is not None and ci.confidence == 0.95
    assert (ci.lower, ci.upper) == pytest.approx((0.2 - 0.0480173, 0.2 + 0.0480173), abs=1e-7)
    assert (ci.lower, ci.upper) == pytest.approx(_scipy_t_interval(values), rel=1e-12)


@given(st.integers(min_value=2, max_value=10**7), st.floats(min_value=0.01, max_value=0.99))
def test_mean_interval_quantile_is_scipys_to_the_last_bit(n: int, confidence: float) -> None:
    # Half zeros, half ones: the bounds are mean ∓ t × s / √n, clipped only for small n.
    values = Distribution.of_counts({0.0: n // 2, 1.0: n - n // 2})
    ci = mean_interval(values, confidence=confidence)
    mean, error = values.mean(), values.standard_error()
    assert ci is not None and mean is not None and error is not None
    half = float(stats.t.ppf((1 + confidence) / 2, n - 1)) * error
    assert (ci.lower, ci.upper) == (max(mean - half, 0.0), min(mean + half, 1.0))


def test_mean_interval_needs_two_values() -> None:
    assert mean_interval(Distribution.of([])) is None
    assert mean_interval(Distribution.of([0.4])) is None  # one value: no spread to estimate
    equal = mean_interval(Distribution.of([0.4, 0.4, 0.4]))  # no spread at all: a point
    assert equal is not None and (equal.lower, equal.upper) == (0.4, 0.4)


def test_mean_interval_is_clipped_and_records_its_level() -> None:
    # 0 and 1: mean .5, s/√2 = .5, t(.975, 1) = 12.706 → far outside [0, 1] before clipping.
    assert mean_interval(Distribution.of([0.0, 1.0])) == ConfidenceInterval(
        lower=0.0, upper=1.0, confidence=0.95
    )
    values = Distribution.of([0.1, 0.2, 0.3, 0.5])
    ninety, ninety_five = mean_interval(values, confidence=0.9), mean_interval(values)
    assert ninety is not None and ninety_five is not None and ninety.confidence == 0.9
    assert ninety_five.lower < ninety.lower < ninety.upper < ninety_five.upper
    with pytest.raises(ValueError, match="confidence"):
        mean_interval(values, confidence=1.0)


def test_complement_mirrors_an_interval() -> None:
    ci = ConfidenceInterval(lower=0.25, upper=0.5, confidence=0.9)
    assert complement_interval(ci) == ConfidenceInterval(lower=0.5, upper=0.75, confidence=0.9)
    assert complement_interval(None) is None


@given(st.lists(st.floats(0.0, 1.0), min_size=2, max_size=60))
def test_mean_interval_agrees_with_scipy(values: list[float]) -> None:
    ci = mean_interval(Distribution.of(values))
    assert ci is not None
    mean = sum(values) / len(values)
    assert 0.0 <= ci.lower <= ci.upper <= 1.0
    assert ci.lower - 1e-12 <= mean <= ci.upper + 1e-12  # numpy-order sum: within rounding
    if stats.sem(values) > 1e-9:  # scipy's own rounding dominates for a near-constant sample
        expected = _scipy_t_interval(values)
        assert (ci.lower, ci.upper) == pytest.approx(expected, rel=1e-9, abs=1e-12)
