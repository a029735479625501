"""Exact, mergeable distributions of case values: counts per distinct value.

Risk scores take finitely many distinct values (they are built from a finite rule set), so a
value → count table is small, merges exactly (integer addition) and still answers every
statistic the report needs. Each statistic is the exact rational value of its formula, rounded
once to the nearest float, so it cannot depend on case order or on how the cases were split
into partitions.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction


@dataclass(frozen=True)
class Distribution:
    """How often each distinct value occurred (keys are finite floats, counts positive)."""

    counts: Mapping[float, int] = field(default_factory=dict)

    @classmethod
    def of(cls, values: Iterable[float]) -> Distribution:
        """Tally ``values``; a NaN or infinity has no place in a 0–1 statistic and is refused."""
        return cls.of_counts(Counter(values))

    @classmethod
    def of_counts(cls, tallied: Mapping[float, int]) -> Distribution:
        """The distribution of values already tallied (value -> count), as :meth:`of` checks."""
        counts: dict[float, int] = {}
        for value, count in tallied.items():
            if not math.isfinite(value):
                raise ValueError(f"statistics need finite values, got {value!r}")
            key = value + 0.0  # -0.0 and 0.0 are one value: keep one spelling of it
            counts[key] = counts.get(key, 0) + count
        return cls(counts)

    @property
    def n(self) -> int:
        """Number of values tallied."""
        return sum(self.counts.values())

    def merge(self, other: Distribution) -> Distribution:
        """The distribution of both samples together."""
        if not other.counts:
            return self
        if not self.counts:
            return other
        merged = dict(self.counts)
        for value, count in other.counts.items():
            merged[value] = merged.get(value, 0) + count
        return Distribution(merged)

    def exact_sum(self) -> Fraction:
        """The sum of every value, with no rounding at all."""
        return sum((Fraction(v) * c for v, c in self.counts.items()), Fraction(0))

    def mean(self) -> float | None:
        """Exact mean rounded once; ``None`` for no values (a mean of nothing is not 0)."""
        n = self.n
        return float(self.exact_sum() / n) if n else None

    def std(self) -> float | None:
        """Population standard deviation (ddof 0): square root of the once-rounded variance."""
        n = self.n
        if not n:
            return None
        return math.sqrt(float(self._squared_deviations() / n))

    def standard_error(self) -> float | None:
        """Standard error of the mean, ``s / √n`` with the sample (ddof 1) standard deviation.

        ``s² / n`` is exact and rounded once; the square root of that float is the figure.
        ``None`` below two values: one value has no spread to estimate it from.
        """
        n = self.n
        if n < 2:
            return None
        return math.sqrt(float(self._squared_deviations() / ((n - 1) * n)))

    def quantile(self, q: Fraction) -> float | None:
        """Linear interpolation between closest ranks (numpy's default ``linear`` method).

        The rank is ``(n - 1) × q``; between the two values around it the result moves in
        proportion, computed exactly and rounded once.
        """
        n = self.n
        if not n:
            return None
        if not 0 <= q <= 1:
            raise ValueError(f"quantile must be within [0, 1], got {q}")
        rank = (n - 1) * q
        low = math.floor(rank)
        fraction = rank - low
        lower = self._value_at(low)
        if fraction == 0:
            return lower
        upper = self._value_at(low + 1)
        return float(Fraction(lower) + (Fraction(upper) - Fraction(lower)) * fraction)

    def median(self) -> float | None:
        """The 50th percentile: the middle value, or the exact midpoint of the middle two."""
        return self.quantile(Fraction(1, 2))

    def max(self) -> float | None:
        """The largest value; ``None`` for no values."""
        return max(self.counts) if self.counts else None

    def _squared_deviations(self) -> Fraction:
        """Exact sum of squared deviations from the exact mean (at least one value)."""
        mean = self.exact_sum() / self.n
        return sum((c * (Fraction(v) - mean) ** 2 for v, c in self.counts.items()), Fraction(0))

    def _value_at(self, rank: int) -> float:
        """The value at 0-based position ``rank`` of the sorted sample."""
        seen = 0
        for value in sorted(self.counts):
            seen += self.counts[value]
            if rank < seen:
                return value
        raise IndexError(f"rank {rank} is outside a sample of {seen} values")
