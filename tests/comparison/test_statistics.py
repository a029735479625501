"""The paired test and the difference intervals against published values and invariants."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trustprobe.comparison import (
    PairedCounts,
    holm_adjust,
    mcnemar_exact_p,
    newcombe_interval,
    newcombe_paired_interval,
)


def test_newcombe_independent_matches_newcombe_1998_example() -> None:
    # Newcombe (1998) Stat Med 17:873, Table II example (a): 56/70 - 48/80, method 10 gives
    # 0.0524 to 0.3339. Our difference is new - base, so base = 48/80 and new = 56/70.
    interval = newcombe_interval(48, 80, 56, 70)
    assert interval is not None
    assert interval.lower == pytest.approx(0.0524, abs=5e-5)
    assert interval.upper == pytest.approx(0.3339, abs=5e-5)


def test_newcombe_paired_matches_fagerland_cavo_example() -> None:
    # Fagerland, Lydersen & Laake (2017), ch. 8, Cavo et al. (2012): table [[59, 6], [16, 80]]
    # (rows: before, columns: after). Square-and-add CI of before - after: -0.1186 to -0.0046.
    # As new - base with base = before: both_passed 59, regressed (pass -> fail) 6,
    # fixed (fail -> pass) 16, both_failed 80; difference (16 - 6) / 161 = +0.0621.
    counts = PairedCounts(both_passed=59, regressed=6, fixed=16, both_failed=80)
    interval = newcombe_paired_interval(counts)
    assert interval is not None
    assert pytest.approx(0.0621, abs=5e-5) == (16 - 6) / 161
    assert interval.lower == pytest.approx(0.0046, abs=5e-5)
    assert interval.upper == pytest.approx(0.1186, abs=5e-5)


def test_mcnemar_exact_matches_fagerland_cavo_example() -> None:
    # Exact conditional McNemar for 6 vs 16 discordant pairs: 2 * P(X <= 6 | n = 22, p = 1/2)
    # = 2 * (1 + 22 + 231 + 1540 + 7315 + 26334 + 74613) / 2^22 = 2 * 110056 / 4194304
    # = 0.052479; Fagerland et al. report P = 0.0525.
    tail = sum(math.comb(22, k) for k in range(7)) / 2**22
    assert tail * 2**22 == 110056
    assert mcnemar_exact_p(6, 16) == pytest.approx(2 * tail)
    assert mcnemar_exact_p(6, 16) == pytest.approx(0.0525, abs=5e-5)


@pytest.mark.parametrize(
    ("regressed", "fixed", "expected"),
    [
        pytest.param(0, 0, 1.0, id="no-discordant-pair"),
        pytest.param(5, 0, 2 / 2**5, id="five-one-way"),  # 2 * (1/2)^5 = 0.0625
        pytest.param(6, 0, 2 / 2**6, id="six-one-way"),  # 2 * (1/2)^6 = 0.03125
        pytest.param(3, 3, 1.0, id="balanced"),
    ],
)
def test_mcnemar_small_tables(regressed: int, fixed: int, expected: float) -> None:
    assert mcnemar_exact_p(regressed, fixed) == pytest.approx(expected)


def test_mcnemar_rejects_negative_counts() -> None:
    with pytest.raises(ValueError, match="counts must be >= 0"):
        mcnemar_exact_p(-1, 2)


def test_intervals_need_trials() -> None:
    assert newcombe_interval(0, 0, 3, 4) is None
    assert newcombe_paired_interval(PairedCounts(0, 0, 0, 0)) is None


def test_holm_adjustment_by_hand() -> None:
    # Sorted: 0.005*4 = 0.02, 0.01*3 = 0.03, 0.03*2 = 0.06, 0.04*1 = 0.04 -> raised to 0.06
    # to stay monotone; results go back to input order.
    assert holm_adjust([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm_adjust([]) == []
    assert holm_adjust([0.7, 0.9]) == pytest.approx([1.0, 1.0])  # capped at 1


counts = st.integers(min_value=0, max_value=60)


@given(a=counts, b=counts, c=counts, d=counts)
def test_paired_interval_brackets_the_difference(a: int, b: int, c: int, d: int) -> None:
    table = PairedCounts(both_passed=a, regressed=b, fixed=c, both_failed=d)
    interval = newcombe_paired_interval(table)
    if table.pairs == 0:
        assert interval is None
        return
    assert interval is not None
    diff = (c - b) / table.pairs
    assert -1.0 <= interval.lower <= diff + 1e-12
    assert diff - 1e-12 <= interval.upper <= 1.0


@given(x1=counts, n1=counts, x2=counts, n2=counts)
def test_independent_interval_brackets_the_difference(x1: int, n1: int, x2: int, n2: int) -> None:
    x1, x2 = min(x1, n1), min(x2, n2)
    interval = newcombe_interval(x1, n1, x2, n2)
    if n1 == 0 or n2 == 0:
        assert interval is None
        return
    assert interval is not None
    diff = x2 / n2 - x1 / n1
    assert -1.0 <= interval.lower <= diff + 1e-12 <= interval.upper + 2e-12 <= 1.0 + 2e-12


@given(b=counts, c=counts)
def test_mcnemar_is_symmetric_and_a_probability(b: int, c: int) -> None:
    p = mcnemar_exact_p(b, c)
    assert 0.0 < p <= 1.0
    assert p == pytest.approx(mcnemar_exact_p(c, b))


@given(st.lists(st.floats(min_value=0.0, max_value=1.0), max_size=30))
def test_holm_never_lowers_a_p_value_and_keeps_order(p_values: list[float]) -> None:
    adjusted = holm_adjust(p_values)
    assert all(adj >= p - 1e-15 and adj <= 1.0 for p, adj in zip(p_values, adjusted, strict=True))
    ranked = sorted(range(len(p_values)), key=lambda i: p_values[i])
    assert [adjusted[i] for i in ranked] == sorted(adjusted)
