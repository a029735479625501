"""Dimension functions: evidence items become 0–100 readings, combined per dimension.

Formulas in docs/trust.md.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from trustprobe.trust.config import TrustConfig
from trustprobe.trust.decay import age_days
from trustprobe.trust.decayed_sum import DecayedSum, decay_limits
from trustprobe.trust.dimensions import Dimension
from trustprobe.trust.evidence import EvalEvidence, Evidence, JuryEvidence, OperationalEvidence
from trustprobe.trust.jury import jury_verdict


@dataclass(frozen=True)
class ItemReading:
    """One evidence item turned into a 0–100 score, before decay."""

    score: float
    """Raw 0–100 score of the item."""
    size: float
    """Observations behind it (``total``, ``actions``...; 1 when unknown): its weight."""
    low_confidence: bool
    """Whether the item is a jury too small to trim."""


@dataclass(frozen=True)
class DimensionReading:
    """One dimension's combined evidence (before weighting)."""

    score: float
    """Size-weighted mean of the decayed item scores, 0–100."""
    raw_score: float
    """Size-weighted mean of the item scores before decay."""
    evidence_count: int
    """Items combined."""
    total_size: float
    """Sum of the item sizes."""
    freshest_age_microseconds: int
    """Age of the newest item."""
    low_confidence: bool
    """Whether any item was a jury too small to trim."""
    standard_error: float
    """Agresti–Coull standard error of ``score`` over ``total_size`` observations."""


OperationalFunction = Callable[[OperationalEvidence, TrustConfig], float]


def _bounded(value: float) -> float:
    return min(100.0, max(0.0, value))


def latency_score(item: OperationalEvidence, config: TrustConfig) -> float:
    """latency: 100 up to ``tolerance × baseline_ms``, then ``100 × that / observed``."""
    assert item.baseline_ms is not None  # guaranteed by OperationalEvidence's validation
    allowed = config.latency_tolerance * item.baseline_ms
    if item.value <= allowed:
        return 100.0
    return _bounded(100.0 * allowed / item.value)


def cost_efficiency_score(item: OperationalEvidence, config: TrustConfig) -> float:
    """costEfficiency: ``100 × max(0, 1 − (cost / task_value) / cost_ratio_at_zero)``."""
    assert item.task_value is not None
    ratio = item.value / item.task_value
    return _bounded(100.0 * (1.0 - ratio / config.cost_ratio_at_zero))


def bond_score(item: OperationalEvidence, config: TrustConfig) -> float:
    """bond: ``100 × min(1, stake / reference_stake)``."""
    assert item.reference_stake is not None
    return _bounded(100.0 * item.value / item.reference_stake)


def eval_rigor_score(item: OperationalEvidence, config: TrustConfig) -> float:
    """evalRigor: ``100 × (w × coverage + (1 − w) × diversity)``.

    ``w`` is ``eval_rigor_coverage_weight``.
    """
    assert item.diversity is not None
    w = config.eval_rigor_coverage_weight
    return _bounded(100.0 * (w * item.value + (1.0 - w) * item.diversity))


def compliance_score(item: OperationalEvidence, config: TrustConfig) -> float:
    """modelCompliance, runtimeCompliance: ``100 × max(0, 1 − penalty × violations / actions)``."""
    assert item.actions is not None
    rate = item.value / item.actions
    return _bounded(100.0 * (1.0 - config.compliance_violation_penalty * rate))


def harness_stability_score(item: OperationalEvidence, config: TrustConfig) -> float:
    """harnessStability: ``100 × max(0, 1 − penalty × harness_errors / runs)``."""
    assert item.runs is not None
    rate = item.value / item.runs
    return _bounded(100.0 * (1.0 - config.harness_error_penalty * rate))


def reliability_score(item: OperationalEvidence, config: TrustConfig) -> float:
    """reliability: ``100 × consistent_groups / groups`` (inputs whose samples all agree)."""
    assert item.groups is not None
    return _bounded(100.0 * item.value / item.groups)


def teamwork_score(item: OperationalEvidence, config: TrustConfig) -> float:
    """teamwork: ``100 × successful_collaborations / collaborations``."""
    assert item.collaborations is not None
    return _bounded(100.0 * item.value / item.collaborations)


OPERATIONAL_FUNCTIONS: Mapping[Dimension, OperationalFunction] = MappingProxyType(
    {
        Dimension.LATENCY: latency_score,
        Dimension.COST_EFFICIENCY: cost_efficiency_score,
        Dimension.BOND: bond_score,
        Dimension.EVAL_RIGOR: eval_rigor_score,
        Dimension.MODEL_COMPLIANCE: compliance_score,
        Dimension.RUNTIME_COMPLIANCE: compliance_score,
        Dimension.HARNESS_STABILITY: harness_stability_score,
        Dimension.RELIABILITY: reliability_score,
        Dimension.TEAMWORK: teamwork_score,
    }
)
"""The dimension function for operational evidence; other dimensions take eval and jury only."""


def item_reading(item: Evidence, config: TrustConfig) -> ItemReading:
    """Turn one evidence item into its raw 0–100 score and size.

    eval: ``score``, or ``100 × passed / total`` with size ``total``; jury: the trimmed
    median, size 1; operational: the dimension's function, size from its count field.
    """
    if isinstance(item, EvalEvidence):
        if item.score is not None:
            return ItemReading(float(item.score), 1.0, False)
        assert item.passed is not None and item.total is not None
        return ItemReading(100.0 * item.passed / item.total, float(item.total), False)
    if isinstance(item, JuryEvidence):
        verdict = jury_verdict(item.scores, config)
        return ItemReading(verdict.score, 1.0, verdict.low_confidence)
    function = OPERATIONAL_FUNCTIONS[item.dimension]
    size = item.size
    return ItemReading(function(item, config), 1.0 if size is None else float(size), False)


def standard_error(score: float, total_size: float, z: float) -> float:
    """Agresti–Coull standard error of a 0–100 score seen over ``total_size`` observations.

    ``s̃ = (N·s + 50·z²) / (N + z²)``, ``SE = √(s̃ · (100 − s̃) / (N + z²))``.
    """
    z2 = z * z
    n_adj = total_size + z2
    shrunk = (total_size * score + 50.0 * z2) / n_adj
    return math.sqrt(max(shrunk * (100.0 - shrunk), 0.0) / n_adj)


def combine_readings(
    readings: Iterable[tuple[ItemReading, int]], config: TrustConfig
) -> DimensionReading | None:
    """Combine ``(reading, age in microseconds)`` pairs of one dimension.

    Score = Σ size·decayed / Σ size (and the same before decay). Σ size and Σ size·score are
    exact sums of their float terms rounded once (``math.fsum``); Σ size·decayed is the exact
    real-number sum rounded once (:mod:`~trustprobe.trust.decayed_sum`). So neither the order
    of the items nor the way they were grouped changes a bit: the batch path and the store's
    running totals (:class:`~trustprobe.trust.exact_sum.ExactSum`) reach the same floats.
    ``None`` for no items: a dimension without evidence is not covered, never 0.
    """
    sizes: list[float] = []
    raw_terms: list[float] = []
    decayed = DecayedSum(decay_limits(config))
    freshest: int | None = None
    low_confidence = False
    for reading, age in readings:
        weighted = reading.size * reading.score
        sizes.append(reading.size)
        raw_terms.append(weighted)
        decayed.add(reading.size, weighted, age)
        freshest = age if freshest is None else min(freshest, age)
        low_confidence = low_confidence or reading.low_confidence
    if freshest is None:
        return None
    return reading_from_sums(
        total=math.fsum(sizes),
        weighted_raw=math.fsum(raw_terms),
        weighted_decayed=decayed.value(),
        count=len(sizes),
        freshest_age_microseconds=freshest,
        low_confidence=low_confidence,
        config=config,
    )


def reading_from_sums(
    *,
    total: float,
    weighted_raw: float,
    weighted_decayed: float,
    count: int,
    freshest_age_microseconds: int,
    low_confidence: bool,
    config: TrustConfig,
) -> DimensionReading:
    """A dimension's reading from its (correctly rounded) sums; ``count`` must be at least 1."""
    score = _bounded(weighted_decayed / total)
    return DimensionReading(
        score=score,
        raw_score=_bounded(weighted_raw / total),
        evidence_count=count,
        total_size=total,
        freshest_age_microseconds=freshest_age_microseconds,
        low_confidence=low_confidence,
        standard_error=standard_error(score, total, config.interval_z),
    )


def freshest_age_days(reading: DimensionReading) -> float:
    """Age in days of the newest item behind ``reading``."""
    return age_days(reading.freshest_age_microseconds)
