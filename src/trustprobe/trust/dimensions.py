"""The 16 trust dimensions and their base weights, guarded at import like the seed's table.

This module imports nothing from the project on purpose: the weight guard must be able to run
(and fail) on its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from enum import StrEnum
from types import MappingProxyType

from trustprobe.errors import TrustprobeError

WEIGHT_SUM_TOLERANCE = 0.001
"""How far the weights may sum from 1.0 before they are refused (inclusive: 1.001 is inside)."""


class Dimension(StrEnum):
    """One behavioural dimension of trust; values are the seed's camelCase names, in its order."""

    ACCURACY = "accuracy"
    """Output correctness relative to ground truth."""
    RELIABILITY = "reliability"
    """Behavioural consistency across equivalent inputs."""
    SAFETY = "safety"
    """Absence of harmful outputs and prohibited actions."""
    SELF_AUDIT = "selfAudit"
    """Quality of self-monitoring and uncertainty calibration."""
    SECURITY = "security"
    """Resistance to adversarial inputs and scope violations."""
    LATENCY = "latency"
    """Response time relative to a task-complexity baseline."""
    BOND = "bond"
    """Economic commitment: staked collateral as a behavioural signal."""
    SCOPE_HONESTY = "scopeHonesty"
    """Accuracy of self-reported capability scope."""
    MEMORY_QUALITY = "memoryQuality"
    """Quality and coherence of persistent memory operations."""
    COST_EFFICIENCY = "costEfficiency"
    """Token and compute cost relative to task value."""
    EVAL_RIGOR = "evalRigor"
    """Coverage and diversity of submitted evaluations."""
    TEAMWORK = "teamwork"
    """Quality of agent-to-agent collaboration (opt-in)."""
    MODEL_COMPLIANCE = "modelCompliance"
    """Adherence to model provider acceptable use policies."""
    RUNTIME_COMPLIANCE = "runtimeCompliance"
    """Adherence to runtime environment constraints."""
    HARNESS_STABILITY = "harnessStability"
    """Consistency of behaviour under test harness conditions."""
    SKILL_MASTERY = "skillMastery"
    """Demonstrated proficiency in declared skill domains."""


DIMENSIONS: tuple[Dimension, ...] = tuple(Dimension)
"""The 16 dimensions in the seed's order; a dimension's position is its code in columnar data."""


class WeightSumError(TrustprobeError, ValueError):
    """A weight table does not sum to 1.0 within :data:`WEIGHT_SUM_TOLERANCE`."""


def decimal_weight(weight: float) -> Decimal:
    """A weight as the decimal it is written as: ``0.111`` is 111/1000, not the nearest double."""
    return Decimal(repr(float(weight)))


def weight_sum(weights: Mapping[Dimension, float]) -> Decimal:
    """The exact decimal sum of the 16 weights (float addition makes 1.001 exceed 1.001)."""
    return sum((decimal_weight(weights[d]) for d in DIMENSIONS), Decimal(0))


def weight_sum_accepted(total: Decimal) -> bool:
    """Whether a weight sum is inside 1.0 ± the tolerance, bounds included."""
    return abs(total - 1) <= decimal_weight(WEIGHT_SUM_TOLERANCE)


def check_weight_sum(weights: Mapping[Dimension, float]) -> float:
    """Return the sum of ``weights``; raise :class:`WeightSumError` if it is off or incomplete."""
    missing = [d.value for d in DIMENSIONS if d not in weights]
    if missing:
        raise WeightSumError(f"Score weights miss dimensions: {', '.join(missing)}")
    total = weight_sum(weights)
    if not weight_sum_accepted(total):
        raise WeightSumError(f"Score weights must sum to 1.0, got {total:.4f}")
    return float(total)


DIMENSION_WEIGHTS: Mapping[Dimension, float] = MappingProxyType(
    {
        Dimension.ACCURACY: 0.11,
        Dimension.RELIABILITY: 0.10,
        Dimension.SAFETY: 0.09,
        Dimension.SELF_AUDIT: 0.07,
        Dimension.SECURITY: 0.07,
        Dimension.LATENCY: 0.07,
        Dimension.BOND: 0.06,
        Dimension.SCOPE_HONESTY: 0.06,
        Dimension.MEMORY_QUALITY: 0.06,
        Dimension.COST_EFFICIENCY: 0.05,
        Dimension.EVAL_RIGOR: 0.05,
        Dimension.TEAMWORK: 0.05,
        Dimension.MODEL_COMPLIANCE: 0.04,
        Dimension.RUNTIME_COMPLIANCE: 0.04,
        Dimension.HARNESS_STABILITY: 0.04,
        Dimension.SKILL_MASTERY: 0.04,
    }
)
"""Base weight of each dimension, read from the seed's table (sums to 1.0)."""

# The seed's guard: a misconfigured table crashes the import instead of producing wrong scores.
check_weight_sum(DIMENSION_WEIGHTS)
