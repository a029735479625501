"""Paired and unpaired statistics for comparing two runs' pass rates.

The exact McNemar test and the Newcombe square-and-add intervals are built on scipy's binomial
test and Wilson interval; Newcombe's combination step and Holm's step-down adjustment are a few
lines each and no maintained dependency we already have provides them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from scipy.stats import beta, binomtest

from trustprobe.metrics import wilson_interval


@dataclass(frozen=True)
class PairedCounts:
    """The paired 2×2 table of one scope: each unit judged in both runs."""

    both_passed: int
    regressed: int
    """Passed in the base run, failed in the new one."""
    fixed: int
    """Failed in the base run, passed in the new one."""
    both_failed: int

    @property
    def pairs(self) -> int:
        """Units judged in both runs."""
        return self.both_passed + self.regressed + self.fixed + self.both_failed

    @property
    def base_passed(self) -> int:
        """Units that passed in the base run."""
        return self.both_passed + self.regressed

    @property
    def new_passed(self) -> int:
        """Units that passed in the new run."""
        return self.both_passed + self.fixed


@dataclass(frozen=True)
class Interval:
    """A two-sided interval for a difference of proportions, in [-1, 1]."""

    lower: float
    upper: float


def mcnemar_exact_p(regressed: int, fixed: int) -> float:
    """Two-sided exact (conditional) McNemar p-value from the discordant pairs.

    Under "no change" each discordant pair is equally likely to go either way, so the number
    that regressed is Binomial(regressed + fixed, 1/2). No discordant pair means the paired data
    show no change at all: p is 1.
    """
    if regressed < 0 or fixed < 0:
        raise ValueError(f"counts must be >= 0, got regressed={regressed}, fixed={fixed}")
    discordant = regressed + fixed
    if discordant == 0:
        return 1.0
    return float(binomtest(regressed, discordant, 0.5, alternative="two-sided").pvalue)


def _wilson(successes: int, n: int, confidence: float) -> tuple[float, float, float]:
    ci = wilson_interval(successes, n, confidence=confidence)
    assert ci is not None  # callers guarantee n > 0
    return successes / n, ci.lower, ci.upper


def _clip(value: float) -> float:
    return min(max(value, -1.0), 1.0)


def newcombe_interval(
    base_passed: int, base_n: int, new_passed: int, new_n: int, *, confidence: float = 0.95
) -> Interval | None:
    """Newcombe's hybrid score interval for ``new rate - base rate`` of independent samples.

    Newcombe (1998), Statistics in Medicine 17:873, method 10: square-and-add of the two Wilson
    intervals. ``None`` when either run has no trials.
    """
    if base_n == 0 or new_n == 0:
        return None
    p1, l1, u1 = _wilson(base_passed, base_n, confidence)
    p2, l2, u2 = _wilson(new_passed, new_n, confidence)
    diff = p2 - p1
    return Interval(
        lower=_clip(diff - math.sqrt((p2 - l2) ** 2 + (u1 - p1) ** 2)),
        upper=_clip(diff + math.sqrt((u2 - p2) ** 2 + (p1 - l1) ** 2)),
    )


def _phi(counts: PairedCounts) -> float:
    """Newcombe's corrected correlation of the two paired proportions."""
    a, b, c, d = counts.both_passed, counts.regressed, counts.fixed, counts.both_failed
    n = counts.pairs
    margins = (a + b) * (c + d) * (a + c) * (b + d)
    if margins == 0:
        return 0.0
    cross = a * d - b * c
    # Newcombe shrinks a positive association by n/2 (a continuity correction on the cross
    # product); without it the interval is too narrow when the runs agree on most units.
    if cross > n / 2:
        return (cross - n / 2) / math.sqrt(margins)
    if cross >= 0:
        return 0.0
    return cross / math.sqrt(margins)


def newcombe_paired_interval(counts: PairedCounts, *, confidence: float = 0.95) -> Interval | None:
    """Newcombe's square-and-add interval for the paired difference ``new rate - base rate``.

    Newcombe (1998), Statistics in Medicine 17:2635, method 10, as in Fagerland, Lydersen and
    Laake, *Statistical Analysis of Contingency Tables* (2017), section 8.5. ``None`` when no
    unit was judged in both runs.
    """
    n = counts.pairs
    if n == 0:
        return None
    p1, l1, u1 = _wilson(counts.base_passed, n, confidence)
    p2, l2, u2 = _wilson(counts.new_passed, n, confidence)
    phi = _phi(counts)
    diff = p2 - p1
    down = (p2 - l2) ** 2 + (u1 - p1) ** 2 - 2 * phi * (p2 - l2) * (u1 - p1)
    up = (u2 - p2) ** 2 + (p1 - l1) ** 2 - 2 * phi * (u2 - p2) * (p1 - l1)
    # |phi| <= 1 keeps both radicands >= (x - y)^2 >= 0; max() only absorbs rounding.
    return Interval(
        lower=_clip(diff - math.sqrt(max(down, 0.0))),
        upper=_clip(diff + math.sqrt(max(up, 0.0))),
    )


def holm_adjust(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the input order.

    Controls the family-wise error rate over all categories tested at once, so that among
    twenty unchanged categories one does not come out "significant" by chance.
    """
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted


def min_significant_flips(pairs: int, alpha: float, *, min_drop: float = 0.0) -> int | None:
    """Fewest one-way flips (newly failing, none newly passing) the paired test flags.

    ``k`` one-way flips give the exact McNemar p ``2 × ½^k``; the count must also reach
    ``min_drop × pairs``. ``None`` when no count up to ``pairs`` is enough.
    """
    floor = math.ceil(min_drop * pairs - 1e-9)
    for flips in range(max(floor, 1), pairs + 1):
        if mcnemar_exact_p(flips, 0) < alpha:
            return flips
    return None


def drop_at_power(pairs: int, flips: int, power: float) -> float:
    """Smallest true share ``d`` of pairs newly failing that gives ``flips`` or more at ``power``.

    With each paired probe failing anew with probability ``d`` (and none fixed), the count of
    flips is Binomial(pairs, d), and P(count ≥ k) = I_d(k, pairs − k + 1), the regularised
    incomplete beta function: its ``power`` quantile is the answer, exactly.
    """
    return float(beta.ppf(power, flips, pairs - flips + 1))
