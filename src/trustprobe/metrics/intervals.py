"""Confidence intervals for pass rates, so a reader can tell 3/4 from 300/400."""

from __future__ import annotations

from scipy.stats import binomtest

from trustprobe.metrics.models import ConfidenceInterval


def wilson_interval(
    successes: int, n: int, *, confidence: float = 0.95
) -> ConfidenceInterval | None:
    """Wilson score interval (no continuity correction) for ``successes`` out of ``n``.

    Returns ``None`` when ``n`` is 0: no trials, no evidence about the rate.

    Raises:
        ValueError: ``successes`` outside ``[0, n]`` or ``confidence`` outside ``(0, 1)``.
    """
    if n < 0 or not 0 <= successes <= n:
        raise ValueError(f"need 0 <= successes <= n, got successes={successes}, n={n}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    if n == 0:
        return None
    # scipy's Wilson interval is the reference implementation; its bounds can land a rounding
    # error outside [0, 1] at k = 0 or k = n, which a rate interval must never do.
    ci = binomtest(successes, n).proportion_ci(confidence_level=confidence, method="wilson")
    return ConfidenceInterval(
        lower=min(max(float(ci.low), 0.0), 1.0),
        upper=min(max(float(ci.high), 0.0), 1.0),
        confidence=confidence,
    )
