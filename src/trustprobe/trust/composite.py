"""The composite: renormalised weighted mean of covered dimensions, security gate, tiers."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from fractions import Fraction
from functools import lru_cache
from typing import Final

from trustprobe.errors import InputError
from trustprobe.trust.config import TrustConfig
from trustprobe.trust.decay import MICROSECONDS_PER_DAY, epoch_microseconds
from trustprobe.trust.dimension_scores import (
    DimensionReading,
    ItemReading,
    combine_readings,
    item_reading,
)
from trustprobe.trust.dimensions import DIMENSIONS, Dimension, decimal_weight
from trustprobe.trust.evidence import Evidence, EvidenceOrigin
from trustprobe.trust.score import (
    CoverageSummary,
    DimensionScore,
    ScoreInterval,
    ScoreSource,
    SecurityGate,
    TierMargin,
    TrustScore,
    unvalidated,
)
from trustprobe.trust.sources import score_sources
from trustprobe.trust.tiers import Tier
from trustprobe.trust.weights import WeightSet

_TIERS_DESCENDING = (Tier.PLATINUM, Tier.GOLD, Tier.SILVER, Tier.BRONZE)
_SECURITY = DIMENSIONS.index(Dimension.SECURITY)
# Floating-point error in a composite of at most 16 terms on a 0–1000 scale is below 1e-10;
# a value this close to a half is re-computed exactly before it is rounded.
_TIE_SLACK: Final = 1e-6
# A score's models hold values computed here, of their fields' types already (mypy checks the
# names; the tests check the types): they are built without validating them again.
_coverage_summary = unvalidated(CoverageSummary)
_dimension_score = unvalidated(DimensionScore)
_score_interval = unvalidated(ScoreInterval)
_security_gate = unvalidated(SecurityGate)
_tier_margin = unvalidated(TierMargin)
_trust_score = unvalidated(TrustScore)


@dataclass(frozen=True)
class AgentReadings:
    """One agent's dimension readings as parallel lists in :data:`DIMENSIONS` order.

    A dimension with ``evidence_count`` 0 is not covered and its other entries are ignored.
    The batch path fills these lists straight from numpy grids.
    """

    score: list[float]
    """Decayed 0–100 score per dimension."""
    raw_score: list[float]
    """Score before decay per dimension."""
    evidence_count: list[int]
    """Items per dimension (0: not covered)."""
    freshest_age_microseconds: list[int]
    """Age of the newest item per dimension."""
    low_confidence: list[bool]
    """Whether a small jury is behind the dimension."""
    standard_error: list[float]
    """Standard error of the score per dimension."""

    @classmethod
    def from_readings(cls, readings: Mapping[Dimension, DimensionReading]) -> AgentReadings:
        """Lay out per-dimension readings (absent dimensions are not covered)."""
        found = [readings.get(d) for d in DIMENSIONS]
        return cls(
            score=[0.0 if r is None else r.score for r in found],
            raw_score=[0.0 if r is None else r.raw_score for r in found],
            evidence_count=[0 if r is None else r.evidence_count for r in found],
            freshest_age_microseconds=[
                0 if r is None else r.freshest_age_microseconds for r in found
            ],
            low_confidence=[False if r is None else r.low_confidence for r in found],
            standard_error=[0.0 if r is None else r.standard_error for r in found],
        )


def check_now(now: datetime) -> datetime:
    """Return ``now`` in UTC; a naive datetime is refused (decay needs an absolute instant)."""
    if now.tzinfo is None or now.utcoffset() is None:
        raise ValueError("'now' must be a timezone-aware datetime")
    return now.astimezone(UTC)


def tier_for(composite: int | None, config: TrustConfig) -> Tier:
    """Return the tier a composite earns by points alone."""
    if composite is None:
        return Tier.UNRATED
    for tier in _TIERS_DESCENDING:
        floor = config.tier_floor(tier)
        assert floor is not None
        if composite >= floor:
            return tier
    return Tier.UNRATED


def exact_composite(readings: AgentReadings, weights: Mapping[Dimension, float]) -> Fraction | None:
    """``10 × Σ w·s / Σ w`` in exact rationals, weights and scores read as the decimals they print.

    35 on accuracy and 46 on safety is 10 × 7.99 / 0.2 = 399.5 exactly, where binary floating
    point gives 399.49999999999994 and would round it down.
    """
    total = Fraction(0)
    weighted = Fraction(0)
    for i, dimension in enumerate(DIMENSIONS):
        if readings.evidence_count[i]:
            weight = Fraction(decimal_weight(weights[dimension]))
            total += weight
            weighted += weight * Fraction(repr(readings.score[i]))
    return None if total == 0 else 10 * weighted / total


def round_composite(
    approximate: float, readings: AgentReadings, weights: Mapping[Dimension, float]
) -> tuple[int, float]:
    """Round the composite half up, clipped to 0–1000; return it and the unrounded value.

    The float ``approximate`` decides unless it lies within a hair of a half, where the
    composite is recomputed exactly (:func:`exact_composite`): ties then round up as the rule
    says, and the cost of rationals is paid only there.
    """
    if abs(approximate - math.floor(approximate) - 0.5) > _TIE_SLACK:
        return min(1000, max(0, math.floor(approximate + 0.5))), approximate
    exact = exact_composite(readings, weights)
    assert exact is not None  # a float composite exists, so some covered dimension has weight
    return min(1000, max(0, math.floor(exact + Fraction(1, 2)))), float(exact)


def weighted_composite(
    readings: AgentReadings, weights: Mapping[Dimension, float]
) -> tuple[float, float] | None:
    """``10 × Σ w·s / Σ w`` over covered dimensions and its standard error, in the seed's order.

    The standard error is ``10 × √Σ (w / Σ w)² · SE²``, treating dimensions as independent.
    ``None`` when no dimension is covered or the covered ones carry no weight.
    """
    total_weight = 0.0
    weighted = 0.0
    for i, dimension in enumerate(DIMENSIONS):
        if readings.evidence_count[i]:
            total_weight += weights[dimension]
            weighted += weights[dimension] * readings.score[i]
    if total_weight <= 0.0:
        return None
    variance = 0.0
    for i, dimension in enumerate(DIMENSIONS):
        if readings.evidence_count[i]:
            share = weights[dimension] / total_weight
            error = readings.standard_error[i]
            variance += (share * share) * (error * error)
    return 10.0 * (weighted / total_weight), 10.0 * math.sqrt(variance)


@lru_cache(maxsize=256)
def _uncovered_lines(
    weights: tuple[tuple[float, float], ...],
) -> dict[Dimension, DimensionScore]:
    # The line of a dimension without evidence depends on its weight only. Scores are frozen
    # models, so one instance serves every score that has it, and each score starts from a copy
    # of this dict (a copy of a dict does not hash its keys again, as setting 16 would).
    return {
        dimension: DimensionScore(
            score=None,
            raw_score=None,
            weight=weight,
            effective_weight=0.0,
            contribution=None,
            evidence_count=0,
            freshest_age_days=None,
            low_confidence=False,
            standard_error=None,
        )
        for dimension, (weight, _) in zip(DIMENSIONS, weights, strict=True)
    }


def _dimension_lines(
    readings: AgentReadings, weights: WeightSet
) -> dict[Dimension, DimensionScore]:
    in_order = weights.in_order
    counts = readings.evidence_count
    total_weight = 0.0
    for i, count in enumerate(counts):
        if count:
            total_weight += in_order[i][0]
    lines = dict(_uncovered_lines(in_order))
    for i, count in enumerate(counts):
        if not count:
            continue
        weight = in_order[i][0]
        share = weight / total_weight if total_weight > 0.0 else 0.0
        score = readings.score[i]
        lines[DIMENSIONS[i]] = _dimension_score(
            score=score,
            raw_score=readings.raw_score[i],
            weight=weight,
            effective_weight=share,
            contribution=10.0 * share * score,
            evidence_count=count,
            freshest_age_days=readings.freshest_age_microseconds[i] / MICROSECONDS_PER_DAY,
            low_confidence=readings.low_confidence[i],
            standard_error=readings.standard_error[i],
        )
    return lines


def finalise_score(
    agent_id: str,
    as_of: datetime,
    readings: AgentReadings,
    composite: tuple[float, float] | None,
    *,
    evidence_count: int,
    ignored_future_count: int,
    config: TrustConfig,
    weights: WeightSet,
    sources: list[ScoreSource],
) -> TrustScore:
    """Apply the security gate, tiers and coverage rule, and write the explanation.

    ``composite`` is :func:`weighted_composite`'s result; the batch path computes it
    vectorised and hands it in, so both paths share every decision made here.
    """
    reasons: list[str] = []
    if weights.warning is not None:
        reasons.append(weights.warning)
    if ignored_future_count:
        reasons.append(f"{ignored_future_count} evidence item(s) observed after as_of were ignored")

    coverage = _coverage(readings.evidence_count, config)
    unrounded: float | None = None
    final: int | None = None
    if composite is None:
        reasons.append(
            "no covered dimension carries weight: composite is null and the agent unrated"
            if coverage.covered
            else "no dimension has evidence: composite is null and the agent unrated"
        )
    else:
        final, unrounded = round_composite(composite[0], readings, weights.weights)

    final, gate_applied, gate = _security_gate_over(final, readings, config, reasons)
    tier, caps = _held_tier(final, coverage, config, gate_applied=gate_applied, reasons=reasons)
    return _trust_score(
        agent_id=agent_id,
        as_of=as_of,
        composite=final,
        composite_unrounded=unrounded,
        tier=tier,
        tier_margin=_margin(final, tier, caps, config),
        interval=_interval(composite, unrounded, config, gate_applied=gate_applied),
        dimensions=_dimension_lines(readings, weights),
        coverage=coverage,
        security_gate=gate,
        weights_source=weights.source,
        weights=dict(weights.weights),
        reasons=reasons,
        evidence_count=evidence_count,
        ignored_future_count=ignored_future_count,
        sources=list(sources),
    )


def _security_gate_over(
    final: int | None, readings: AgentReadings, config: TrustConfig, reasons: list[str]
) -> tuple[int | None, bool, SecurityGate]:
    """The composite under the security gate, whether the gate applies, and what it found and did.

    A low security score is reported even when there is no composite to cap; a cap adds its
    reason to ``reasons``.
    """
    security_score = readings.score[_SECURITY] if readings.evidence_count[_SECURITY] else None
    applied = security_score is not None and security_score < config.security_gate_threshold
    capped = False
    reason: str | None = None
    if applied and security_score is not None:
        reason = (
            f"security score {security_score:.2f} is below {config.security_gate_threshold:g}: "
            f"composite capped at {config.security_gate_cap} and tier at "
            f"{config.security_gate_max_tier.value}"
        )
    if applied and final is not None:
        uncapped = final
        capped = final > config.security_gate_cap
        final = min(final, config.security_gate_cap)
        if capped:
            reasons.append(
                f"security gate: {reason} (composite lowered from {uncapped} to {final})"
            )
    gate = _security_gate(
        applied=applied,
        threshold=config.security_gate_threshold,
        cap=config.security_gate_cap,
        max_tier=config.security_gate_max_tier,
        security_score=security_score,
        capped=capped,
        reason=reason,
    )
    return final, applied, gate


def _coverage(counts: Sequence[int], config: TrustConfig) -> CoverageSummary:
    """Which dimensions have evidence, and whether they meet the coverage requirement."""
    covered = [d for i, d in enumerate(DIMENSIONS) if counts[i]]
    covered_set = set(covered)
    missing_required = [d for d in config.required_dimensions if d not in covered_set]
    return _coverage_summary(
        covered=covered,
        covered_count=len(covered),
        total=len(DIMENSIONS),
        required=list(config.required_dimensions),
        missing_required=missing_required,
        min_covered=config.min_covered_dimensions,
        meets_requirement=not missing_required and len(covered) >= config.min_covered_dimensions,
    )


def _held_tier(
    final: int | None,
    coverage: CoverageSummary,
    config: TrustConfig,
    *,
    gate_applied: bool,
    reasons: list[str],
) -> tuple[Tier, list[Tier]]:
    """The tier of ``final`` held under the security gate's and the coverage rule's caps.

    Returns the tier and the caps that applied; each hold adds its reason to ``reasons``.
    """
    tier = tier_for(final, config)
    caps: list[Tier] = []
    if gate_applied:
        caps.append(config.security_gate_max_tier)
        if tier.rank > config.security_gate_max_tier.rank:
            reasons.append(
                f"security gate: tier held at {config.security_gate_max_tier.value} "
                f"(the composite alone gives {tier.value})"
            )
            tier = config.security_gate_max_tier
    if final is not None and not coverage.meets_requirement:
        caps.append(config.coverage_max_tier)
        if tier.rank > config.coverage_max_tier.rank:
            parts = []
            if coverage.missing_required:
                parts.append(
                    "missing required " + ", ".join(d.value for d in coverage.missing_required)
                )
            if coverage.covered_count < config.min_covered_dimensions:
                parts.append(
                    f"{coverage.covered_count} of {len(DIMENSIONS)} dimensions covered, "
                    f"{config.min_covered_dimensions} needed"
                )
            reasons.append(
                f"coverage requirement not met ({'; '.join(parts)}): tier held at "
                f"{config.coverage_max_tier.value} (the composite alone gives {tier.value})"
            )
            tier = config.coverage_max_tier
    return tier, caps


def _interval(
    composite: tuple[float, float] | None,
    unrounded: float | None,
    config: TrustConfig,
    *,
    gate_applied: bool,
) -> ScoreInterval | None:
    """The composite's interval at ``config.interval_z`` standard errors, under the gate's cap."""
    if composite is None or unrounded is None:
        return None
    composite_se = composite[1]
    spread = config.interval_z * composite_se
    low = max(0, math.floor(unrounded - spread))
    high = min(1000, math.ceil(unrounded + spread))
    if gate_applied:
        low = min(low, config.security_gate_cap)
        high = min(high, config.security_gate_cap)
    return _score_interval(low=low, high=high, standard_error=composite_se, z=config.interval_z)


def _margin(final: int | None, tier: Tier, caps: Sequence[Tier], config: TrustConfig) -> TierMargin:
    """Points above the tier's floor, and to the next tier when no cap holds the score below it."""
    floor = config.tier_floor(tier)
    above_floor = None if final is None or floor is None else final - floor
    next_tier: Tier | None = None
    to_next: int | None = None
    if final is not None and tier is not Tier.PLATINUM:
        candidate = next(t for t in _TIERS_DESCENDING if t.rank == tier.rank + 1)
        if all(candidate.rank <= cap.rank for cap in caps):
            next_floor = config.tier_floor(candidate)
            assert next_floor is not None
            next_tier, to_next = candidate, max(next_floor - final, 0)
    return _tier_margin(points_above_floor=above_floor, next_tier=next_tier, points_to_next=to_next)


def unique_evidence(evidence: Iterable[Evidence]) -> dict[str, Evidence]:
    """Index evidence by id; a repeated id counts once, a conflicting one is an error."""
    by_id: dict[str, Evidence] = {}
    for item in evidence:
        known = by_id.get(item.id)
        if known is None:
            by_id[item.id] = item
        elif known != item:
            raise InputError(
                f"evidence id '{item.id}' appears twice with different content", field="id"
            )
    return by_id


def compute_trust_score(
    agent_id: str,
    evidence: Iterable[Evidence],
    *,
    now: datetime,
    config: TrustConfig | None = None,
    weights: WeightSet | None = None,
) -> TrustScore:
    """Score one agent from its evidence as of ``now`` (rules in docs/trust.md).

    Evidence about other agents is ignored, a repeated id counts once, items observed after
    ``now`` are ignored (and counted), and the order of ``evidence`` never matters.
    """
    config = config or TrustConfig()
    weights = weights or WeightSet()
    as_of = check_now(now)
    now_us = epoch_microseconds(as_of)
    # Ids are unique across agents, as in the batch path: another agent's record reusing an id
    # with different content is refused here too, not skipped with the other agent's evidence.
    mine = {
        item_id: item
        for item_id, item in unique_evidence(evidence).items()
        if item.agent_id == agent_id
    }
    by_dimension: dict[Dimension, list[tuple[str, ItemReading, int]]] = defaultdict(list)
    origins: list[tuple[EvidenceOrigin, Dimension]] = []
    ignored_future = 0
    for item in mine.values():
        age = now_us - epoch_microseconds(item.observed_at)
        if age < 0:
            ignored_future += 1
            continue
        by_dimension[item.dimension].append((item.id, item_reading(item, config), age))
        if item.source is not None:
            origins.append((item.source, item.dimension))
    readings: dict[Dimension, DimensionReading] = {}
    for dimension, items in by_dimension.items():
        reading = combine_readings(((r, age) for _, r, age in items), config)
        if reading is not None:
            readings[dimension] = reading
    return score_readings(
        agent_id,
        as_of,
        readings,
        evidence_count=len(mine) - ignored_future,
        ignored_future_count=ignored_future,
        config=config,
        weights=weights,
        sources=score_sources(origins),
    )


def score_readings(
    agent_id: str,
    as_of: datetime,
    readings: Mapping[Dimension, DimensionReading],
    *,
    evidence_count: int,
    ignored_future_count: int,
    config: TrustConfig,
    weights: WeightSet,
    sources: list[ScoreSource],
) -> TrustScore:
    """Score one agent from its dimension readings: the composite, then :func:`finalise_score`.

    ``readings`` holds the covered dimensions only.
    """
    laid_out = AgentReadings.from_readings(readings)
    return finalise_score(
        agent_id,
        as_of,
        laid_out,
        weighted_composite(laid_out, weights.weights),
        evidence_count=evidence_count,
        ignored_future_count=ignored_future_count,
        config=config,
        weights=weights,
        sources=sources,
    )
