import pytest
from hypothesis import given
from hypothesis import strategies as st

from trustprobe.trust import TrustConfig, decayed_score, jury_verdict
from trustprobe.trust.decay import MICROSECONDS_PER_DAY

CONFIG = TrustConfig()


def days(n: float) -> int:
    return round(n * MICROSECONDS_PER_DAY)


@pytest.mark.parametrize(
    ("raw", "age_days", "expected"),
    [
        pytest.param(80.0, 0.0, 80.0, id="fresh"),
        pytest.param(80.0, 7.0, 80.0, id="end-of-grace"),
        pytest.param(80.0, 14.0, 79.9, id="one-week-overdue"),  # 80 − 0.1 × 7 / 7
        pytest.param(80.0, 10.5, 79.95, id="half-week-overdue"),  # 80 − 0.1 × 3.5 / 7: continuous
        pytest.param(80.0, 77.0, 79.0, id="ten-weeks-overdue"),  # 80 − 0.1 × 70 / 7
        pytest.param(80.0, 7.0 + 52 * 7, 74.8, id="one-year-overdue"),  # 80 − 0.1 × 52
        pytest.param(0.5, 7.0 + 6 * 7, 0.0, id="floored-at-zero"),  # 0.5 − 0.6 → 0, never negative
    ],
)
def test_decay_loses_a_tenth_of_a_point_per_week_after_grace(
    raw: float, age_days: float, expected: float
) -> None:
    assert decayed_score(raw, days(age_days), CONFIG) == pytest.approx(expected, abs=1e-9)


def test_decay_parameters_are_configurable() -> None:
    config = TrustConfig(decay_points_per_week=1.0, decay_grace_days=0.0)
    assert decayed_score(50.0, days(14), config) == pytest.approx(48.0)  # 50 − 1 × 14 / 7


@given(
    raw=st.floats(0, 100),
    age=st.integers(0, 20 * 365 * MICROSECONDS_PER_DAY),
    later=st.integers(0, 365 * MICROSECONDS_PER_DAY),
)
def test_decay_never_raises_a_score_and_never_goes_negative(
    raw: float, age: int, later: int
) -> None:
    now = decayed_score(raw, age, CONFIG)
    assert 0.0 <= now <= raw
    assert decayed_score(raw, age + later, CONFIG) <= now


@pytest.mark.parametrize(
    ("scores", "expected", "retained", "low"),
    [
        # 5 verdicts: drop ⌊5 × 0.2⌋ = 1 at each end → [70, 72, 75], median 72.
        pytest.param([100, 0, 75, 70, 72], 72.0, (70.0, 72.0, 75.0), False, id="five-trimmed"),
        # 10 verdicts: drop 2 at each end → [60, 61, 62, 63, 64, 65], median (62 + 63) / 2.
        pytest.param(
            [0, 0, 60, 61, 62, 63, 64, 65, 100, 100],
            62.5,
            (60.0, 61.0, 62.0, 63.0, 64.0, 65.0),
            False,
            id="ten-trimmed",
        ),
        # 9 verdicts: ⌊9 × 0.2⌋ = 1 at each end → 7 kept, median the 5th smallest = 50.
        pytest.param(
            [0, 10, 20, 40, 50, 60, 80, 90, 100],
            50.0,
            (10.0, 20.0, 40.0, 50.0, 60.0, 80.0, 90.0),
            False,
            id="nine-trimmed",
        ),
        # 4 verdicts: too few to trim → median of all (40 + 60) / 2, low confidence.
        pytest.param([0, 40, 60, 100], 50.0, (0.0, 40.0, 60.0, 100.0), True, id="four-untrimmed"),
        pytest.param([33], 33.0, (33.0,), True, id="single"),
    ],
)
def test_jury_trims_then_takes_the_median(
    scores: list[float], expected: float, retained: tuple[float, ...], low: bool
) -> None:
    verdict = jury_verdict(scores, CONFIG)
    assert verdict.score == expected
    assert verdict.retained == retained
    assert verdict.low_confidence is low


def test_one_adversarial_juror_cannot_collapse_the_jury() -> None:
    honest = [81, 82, 83, 84]
    assert jury_verdict([*honest, 0], CONFIG).score == 82.0  # [81, 82, 83] after trimming
    assert jury_verdict([*honest, 100], CONFIG).score == 83.0  # [82, 83, 84]


def test_jury_rules_are_configurable() -> None:
    config = TrustConfig(jury_min_verdicts=3, jury_trim_fraction=0.34)
    verdict = jury_verdict([0, 50, 100], config)  # ⌊3 × 0.34⌋ = 1 → [50]
    assert (verdict.score, verdict.trimmed, verdict.low_confidence) == (50.0, 1, False)


def test_jury_trim_survives_float_products() -> None:
    # 0.29 × 100 = 28.999999999999996 in floats; the trim is still 29 verdicts at each end.
    config = TrustConfig(jury_trim_fraction=0.29)
    assert jury_verdict(list(range(100)), config).trimmed == 29


def test_empty_jury_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one verdict"):
        jury_verdict([], CONFIG)
