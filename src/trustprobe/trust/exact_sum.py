"""Exact sums of floats, rounded once: the same result in any order or grouping."""

from __future__ import annotations

from fractions import Fraction


class ExactSum:
    """The exact sum of floats, as ``numerator × 2**-exponent``; :meth:`value` rounds it once.

    Every finite float is an integer times a power of two, so the sum of any number of them is
    held without error, whatever the order of the additions. ``value()`` equals ``math.fsum``
    of the same terms. Text form (for storing running totals): ``"numerator/exponent"``.
    """

    __slots__ = ("exponent", "numerator")

    def __init__(self, numerator: int = 0, exponent: int = 0) -> None:
        self.numerator = numerator
        self.exponent = exponent

    def add(self, term: float) -> None:
        """Add one finite float exactly."""
        numerator, denominator = term.as_integer_ratio()
        shift = denominator.bit_length() - 1  # denominators of floats are powers of two
        if shift > self.exponent:
            self.numerator <<= shift - self.exponent
            self.exponent = shift
        self.numerator += numerator << (self.exponent - shift)

    def add_product(self, term: float, factor: int) -> None:
        """Add ``term × factor`` (a finite float times an integer) exactly."""
        numerator, denominator = term.as_integer_ratio()
        shift = denominator.bit_length() - 1
        if shift > self.exponent:
            self.numerator <<= shift - self.exponent
            self.exponent = shift
        self.numerator += (numerator * factor) << (self.exponent - shift)

    def add_exact(self, other: ExactSum) -> None:
        """Add another exact sum."""
        if other.exponent > self.exponent:
            self.numerator <<= other.exponent - self.exponent
            self.exponent = other.exponent
        self.numerator += other.numerator << (self.exponent - other.exponent)

    def fraction(self) -> Fraction:
        """The exact sum as a :class:`~fractions.Fraction`."""
        return Fraction(self.numerator, 1 << self.exponent)

    def value(self) -> float:
        """The sum rounded once to the nearest float (ties to even), as ``math.fsum`` does."""
        return self.numerator / (1 << self.exponent)

    def text(self) -> str:
        """The exact sum as ``"numerator/exponent"``."""
        return f"{self.numerator}/{self.exponent}"

    @classmethod
    def from_text(cls, text: str) -> ExactSum:
        """Read :meth:`text` back; anything else is a ValueError."""
        numerator, _, exponent = text.partition("/")
        value = cls(int(numerator), int(exponent))
        if value.exponent < 0:
            raise ValueError(f"not an exact sum: {text!r}")
        return value
