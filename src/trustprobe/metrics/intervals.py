"""Confidence intervals of the run metrics, so a reader can tell 3/4 from 300/400."""

from __future__ import annotations

import math

from trustprobe.metrics.distribution import Distribution
from trustprobe.metrics.models import ConfidenceInterval


def _check_confidence(confidence: float) -> None:
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")


def _clip01(value: float) -> float:
    return min(max(value, 0.0), 1.0)


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
    _check_confidence(confidence)
    if n == 0:
        return None
    # The bounds can land a rounding error outside [0, 1], which a rate interval must never do.
    lower, upper = _wilson_bounds(successes, n, confidence)
    return ConfidenceInterval(lower=_clip01(lower), upper=_clip01(upper), confidence=confidence)


def _wilson_bounds(k: int, n: int, confidence: float) -> tuple[float, float]:
    """SciPy's two-sided Wilson bounds, ``binomtest(k, n).proportion_ci(method="wilson")``.

    The same operations in the same order, so the same bits (``tests/metrics``); called
    through ``binomtest``, they come with a p-value nobody reads, a search over the binomial
    distribution that costs a millisecond an interval. Newcombe (1998), method 3.
    """
    from scipy.special import ndtri  # a quarter of a second to import: only when needed

    p = k / n
    z = float(ndtri(0.5 + 0.5 * confidence))
    denom = 2 * (n + z**2)
    center = (2 * n * p + z**2) / denom
    delta = z / denom * math.sqrt(4 * n * p * (1 - p) + z**2)
    return (0.0 if k == 0 else center - delta), (1.0 if k == n else center + delta)


def mean_interval(values: Distribution, *, confidence: float = 0.95) -> ConfidenceInterval | None:
    """Student-t interval of the mean of ``values`` (0–1 figures), clipped to [0, 1].

    ``mean ± t(1 − α/2, n − 1) × s / √n``, with ``s`` the sample (ddof 1) standard deviation.
    The mean and ``s² / n`` are exact and rounded once, so the interval depends only on the
    value → count table: not on case order, nor on how the cases were partitioned.

    Returns ``None`` below two values: one value has no spread to estimate the uncertainty from.

    Raises:
        ValueError: ``confidence`` outside ``(0, 1)``.
    """
    _check_confidence(confidence)
    mean, error = values.mean(), values.standard_error()
    if mean is None or error is None:
        return None
    # The quantile as scipy.stats.t.ppf computes it (its _ppf), from scipy.special: the
    # metrics then need no scipy.stats, which takes half a second to import.
    from scipy.special import stdtrit

    half = float(stdtrit(values.n - 1, (1 + confidence) / 2)) * error
    return ConfidenceInterval(
        lower=_clip01(mean - half), upper=_clip01(mean + half), confidence=confidence
    )


def complement_interval(ci: ConfidenceInterval | None) -> ConfidenceInterval | None:
    """The interval of ``1 − x`` from the interval of ``x`` (bounds swap places)."""
    if ci is None:
        return None
    return ConfidenceInterval(lower=1.0 - ci.upper, upper=1.0 - ci.lower, confidence=ci.confidence)
