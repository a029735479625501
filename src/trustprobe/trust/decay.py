"""Time decay: evidence loses points per week of age beyond a grace period, floored at 0."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from trustprobe.trust.config import TrustConfig

MICROSECONDS_PER_DAY = 86_400_000_000
"""Ages are kept as integer microseconds, so every path computes the same ages exactly."""

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_ONE_MICROSECOND = timedelta(microseconds=1)


def epoch_microseconds(moment: datetime) -> int:
    """Integer microseconds since the Unix epoch of a timezone-aware datetime."""
    return (moment - _EPOCH) // _ONE_MICROSECOND


def age_days(age_microseconds: int) -> float:
    """Convert an age in integer microseconds to (fractional) days."""
    return age_microseconds / MICROSECONDS_PER_DAY


def decayed_score(raw: float, age_microseconds: int, config: TrustConfig) -> float:
    """``max(0, raw − points_per_week × max(0, age_days − grace_days) / 7)``, in floats.

    Continuous: an item 7.5 days past the grace period loses 0.1 × 7.5 / 7 ≈ 0.107 points.
    One item's value, for display; a dimension's Σ size·decayed is the exact sum of the same
    formula rounded once (:mod:`trustprobe.trust.decayed_sum`), not a sum of these.
    """
    overdue = overdue_days(age_microseconds, config)
    return max(raw - config.decay_points_per_week * (overdue / 7.0), 0.0)


def overdue_days(age_microseconds: int, config: TrustConfig) -> float:
    """Days of decay an item of this age has had: ``max(0, age_days − grace_days)``.

    Non-decreasing in the age, so when the oldest item of a group has 0.0 every item has, and
    :func:`decayed_score` returns each raw score unchanged.
    """
    return max(age_days(age_microseconds) - config.decay_grace_days, 0.0)
