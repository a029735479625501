"""Jury verdicts: trim the top and bottom of a large enough jury, then take the median."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from trustprobe.trust.config import TrustConfig


@dataclass(frozen=True)
class JuryVerdict:
    """The reduced verdict of one jury."""

    score: float
    """Median of the retained verdicts."""
    retained: tuple[float, ...]
    """Verdicts kept after trimming, sorted."""
    trimmed: int
    """Verdicts dropped at each end."""
    low_confidence: bool
    """Whether the jury was smaller than the trimming minimum."""


def jury_verdict(scores: Sequence[float], config: TrustConfig) -> JuryVerdict:
    """Reduce juror scores: with ``jury_min_verdicts`` or more, drop ``⌊n × fraction⌋`` at each end.

    Fewer verdicts are used whole and marked low-confidence. Symmetric trimming leaves the
    median where it was; it matters for what is reported as retained (see docs/trust.md).
    """
    if not scores:
        raise ValueError("a jury needs at least one verdict")
    ordered = sorted(float(s) for s in scores)
    n = len(ordered)
    if n < config.jury_min_verdicts:
        return JuryVerdict(statistics.median(ordered), tuple(ordered), 0, True)
    # The epsilon stops products like 0.29 × 100 = 28.999999999999996 from keeping a verdict.
    cut = math.floor(n * config.jury_trim_fraction + 1e-9)
    retained = ordered[cut : n - cut]
    return JuryVerdict(statistics.median(retained), tuple(retained), cut, False)
