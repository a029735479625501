"""A dimension's Σ size·decayed: the exact real-number value, rounded once.

With linear decay, an item of size ``s``, weighted score ``w`` (``s × score`` as the engine
rounds that product) and age ``a`` (integer microseconds) contributes

- ``w`` while in grace (``a ≤ Γ``, Γ the grace period in microseconds),
- ``w − κ·s·(a − Γ)`` while decaying (κ = points per week / 7 per day, per microsecond),
- ``0`` from its zero age on (``w − κ·s·(a − Γ) ≤ 0``).

So over a dimension's items the sum is ``W − κ·(SA − Γ·S)``: ``W`` = Σ w over the items not at
0, ``S`` = Σ s and ``SA`` = Σ s·a over the decaying ones. Those three sums are kept exact
(:class:`ExactSum`) and the formula is evaluated in integers and divided once, so the result
is the correctly rounded value of the real-number sum, whatever path computed the three sums:
item by item (:class:`DecayedSum`, the one-agent path), per group over columns (the batch
engine) or from running sums moved forward in time (the store). Details in docs/trust.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from trustprobe.trust.config import TrustConfig
from trustprobe.trust.decay import MICROSECONDS_PER_DAY
from trustprobe.trust.exact_sum import ExactSum

_SCREEN_RELATIVE = 1e-12
"""Relative margin of the float estimate of a zero age; outside it the estimate decides."""


@dataclass(frozen=True)
class DecayLimits:
    """The decay settings as exact numbers, and the integer thresholds they give."""

    points_per_week: Fraction
    """Points lost per week past grace (exact value of the setting)."""
    grace_days: Fraction
    """Grace period in days (exact value of the setting)."""
    grace_floor_us: int
    """The largest age, in integer microseconds, that is still in grace: ``⌊Γ⌋``."""
    decays: bool
    """Whether items lose points at all."""

    def zero_age(self, size: float, weighted: float) -> int:
        """The smallest integer age at which an item past grace contributes 0.

        ``⌈Γ + w / (κ·s)⌉``; only for settings that decay.
        """
        week = 7 * MICROSECONDS_PER_DAY
        span = Fraction(weighted) * week / (self.points_per_week * Fraction(size))
        return math.ceil(self.grace_days * MICROSECONDS_PER_DAY + span)

    def zero_age_estimate(self, size: float, weighted: float) -> float:
        """A float estimate of :meth:`zero_age`, within a relative 1e-12 (or inf/nan)."""
        per_day = float(self.points_per_week)
        return (float(self.grace_days) + 7.0 * (weighted / (per_day * size))) * MICROSECONDS_PER_DAY

    def at_zero(self, size: float, weighted: float, age: int) -> bool:
        """Whether an item past grace has reached 0 at ``age`` (exact; screened by a float)."""
        estimate = self.zero_age_estimate(size, weighted)
        margin = estimate * _SCREEN_RELATIVE + 2.0
        if age >= estimate + margin:
            return True
        if age < estimate - margin:
            return False
        return age >= self.zero_age(size, weighted)


@lru_cache(maxsize=64)
def _limits(points_per_week: float, grace_days: float) -> DecayLimits:
    grace = Fraction(grace_days)
    return DecayLimits(
        points_per_week=Fraction(points_per_week),
        grace_days=grace,
        grace_floor_us=math.floor(grace * MICROSECONDS_PER_DAY),
        decays=points_per_week > 0,
    )


def decay_limits(config: TrustConfig) -> DecayLimits:
    """The :class:`DecayLimits` of ``config``'s decay settings."""
    return _limits(config.decay_points_per_week, config.decay_grace_days)


def decayed_total(
    weighted: ExactSum, size: ExactSum, size_age: ExactSum, limits: DecayLimits
) -> float:
    """``W − κ·(SA − Γ·S)`` rounded once to the nearest float (ties to even).

    ``weighted`` = Σ w over the items not at 0; ``size`` and ``size_age`` = Σ s and Σ s·a over
    the decaying ones. Evaluated over one common integer denominator and divided once (Python's
    integer true division is correctly rounded).
    """
    if size.numerator == 0:  # nothing decaying: the sum of the weighted scores
        return weighted.value()
    points_num, points_den = limits.points_per_week.as_integer_ratio()
    grace_num, grace_den = limits.grace_days.as_integer_ratio()
    exponent = max(weighted.exponent, size.exponent, size_age.exponent)
    w = weighted.numerator << (exponent - weighted.exponent)
    s = size.numerator << (exponent - size.exponent)
    sa = size_age.numerator << (exponent - size_age.exponent)
    week = 7 * MICROSECONDS_PER_DAY
    # Multiplied through by 2**exponent · 7D · points_den · grace_den.
    numerator = (
        w * week * points_den * grace_den
        - points_num * sa * grace_den
        + points_num * grace_num * s * MICROSECONDS_PER_DAY
    )
    return numerator / ((week * points_den * grace_den) << exponent)


class DecayedSum:
    """The three exact sums of one dimension as of one ``now``, fed item by item."""

    __slots__ = ("limits", "size", "size_age", "weighted")

    def __init__(
        self,
        limits: DecayLimits,
        weighted: ExactSum | None = None,
        size: ExactSum | None = None,
        size_age: ExactSum | None = None,
    ) -> None:
        self.limits = limits
        self.weighted = weighted or ExactSum()
        self.size = size or ExactSum()
        self.size_age = size_age or ExactSum()

    def add(self, size: float, weighted: float, age: int) -> None:
        """Count one item of ``age`` microseconds (at least 0)."""
        limits = self.limits
        if not limits.decays or age <= limits.grace_floor_us:
            self.weighted.add(weighted)
        elif not limits.at_zero(size, weighted, age):
            self.weighted.add(weighted)
            self.size.add(size)
            self.size_age.add_product(size, age)

    def value(self) -> float:
        """Σ size·decayed, correctly rounded."""
        return decayed_total(self.weighted, self.size, self.size_age, self.limits)


FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


def decay_phases(
    size: FloatArray, weighted: FloatArray, age: IntArray, limits: DecayLimits
) -> tuple[BoolArray, BoolArray]:
    """Per item: whether it is decaying, and whether it is at 0 (as :meth:`DecayedSum.add`).

    Vectorised with the same float screen; the items near their zero age are decided exactly.
    """
    if not limits.decays:
        none = np.zeros(len(age), dtype=np.bool_)
        return none, none.copy()
    past = age > limits.grace_floor_us
    with np.errstate(all="ignore"):
        points, grace = float(limits.points_per_week), float(limits.grace_days)
        estimate = (grace + 7.0 * (weighted / (points * size))) * MICROSECONDS_PER_DAY
        margin = estimate * _SCREEN_RELATIVE + 2.0
        ages = age.astype(np.float64)
        surely_zero = ages >= estimate + margin
        surely_not = ages < estimate - margin
    zero = past & surely_zero
    for row in np.flatnonzero(past & ~surely_zero & ~surely_not).tolist():
        zero[row] = int(age[row]) >= limits.zero_age(float(size[row]), float(weighted[row]))
    return past & ~zero, zero


def exact_float_sum(values: list[float]) -> ExactSum:
    """The exact sum of finite floats, from a few ``math.fsum`` passes.

    Each pass rounds what the previous parts left over, so the parts add up to the exact sum
    (usually one or two passes).
    """
    total = ExactSum()
    taken: list[float] = []
    while True:
        part = math.fsum(values + taken)
        if part == 0.0:
            return total
        total.add(part)
        taken.append(-part)


_SPLIT = 2.0**27 + 1.0
_AGE_HALF = 26


def exact_products(size: FloatArray, age: IntArray) -> list[FloatArray] | None:
    """Floats whose exact sum is Σ size·age, four per item; ``None`` if out of range.

    Sizes split into two 26-bit halves (Veltkamp), ages below 2**52 into two 26-bit halves:
    each product of halves has at most 52 significant bits, so it is exact.
    """
    if len(size) and (int(age.max()) >= 2**52 or int(age.min()) < 0 or size.max() > 2.0**900):
        return None
    scaled = size * _SPLIT
    size_high = scaled - (scaled - size)
    size_low = size - size_high
    age_high = (age >> _AGE_HALF).astype(np.float64) * float(2**_AGE_HALF)
    age_low = (age & (2**_AGE_HALF - 1)).astype(np.float64)
    return [
        size_high * age_high,
        size_high * age_low,
        size_low * age_high,
        size_low * age_low,
    ]
