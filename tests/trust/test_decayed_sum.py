"""Σ size·decayed is the exact real-number sum rounded once, on every path of the engine."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta
from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from trustprobe.trust import (
    DecayedSum,
    Dimension,
    Evidence,
    EvidenceTable,
    ExactSum,
    TrustConfig,
    compute_trust_score,
    compute_trust_scores,
    decay_limits,
    epoch_microseconds,
    parse_evidence,
)
from trustprobe.trust.batch import _decaying_sums
from trustprobe.trust.decay import MICROSECONDS_PER_DAY
from trustprobe.trust.decayed_sum import exact_float_sum, exact_products

NOW = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
NOW_US = epoch_microseconds(NOW)
DAY_US = MICROSECONDS_PER_DAY

Item = tuple[float, float, int]
"""(size, weighted score, observed time in microseconds)."""
Drawn = tuple[int, int, int]
"""(passed, total, observed time in microseconds) of an eval record."""


def exact_decayed_sum(items: list[Item], now_us: int, config: TrustConfig) -> float:
    """The reference: Σ max(0, w − κ·s·max(0, a − Γ)) in Fractions, item by item, rounded once.

    An item in grace (``a ≤ Γ``) contributes its weighted score ``w``.
    """
    points = Fraction(config.decay_points_per_week)
    grace = Fraction(config.decay_grace_days) * DAY_US
    per_us = points / (7 * DAY_US)
    total = Fraction(0)
    for size, weighted, observed in items:
        overdue = max(Fraction(0), now_us - observed - grace)
        total += max(Fraction(0), Fraction(weighted) - per_us * Fraction(size) * overdue)
    return float(total)


configs = st.builds(
    TrustConfig,
    decay_points_per_week=st.sampled_from([0.0, 0.1, 1.0, 7.3, 1e-9]),
    decay_grace_days=st.sampled_from([0.0, 7.0, 1.5, 0.1]),
)
totals = st.sampled_from([1, 3, 250, 1000]) | st.integers(1, 2**20)


def weighted_score(passed: int, total: int) -> float:
    """Size × score of an eval record, rounded as the engine rounds it."""
    return float(total) * (100.0 * passed / total)


def items_of(drawn: list[Drawn]) -> list[Item]:
    """The (size, weighted score, observed) of drawn records."""
    return [
        (float(total), weighted_score(passed, total), observed) for passed, total, observed in drawn
    ]


@st.composite
def records_at(draw: st.DrawFn, now_us: int, config: TrustConfig) -> list[Drawn]:
    """Items aged around the places where the formula changes, as of ``now_us``.

    The end of grace and the zero age to the microsecond (and a microsecond either side), any
    age back to 1970, and just-observed items.
    """
    limits = decay_limits(config)
    drawn = []
    for _ in range(draw(st.integers(1, 40))):
        total = draw(totals)
        passed = draw(st.sampled_from([0, 1, total // 3, total - 1, total]) | st.integers(0, total))
        size, weighted = float(total), weighted_score(passed, total)
        places = [0, limits.grace_floor_us, limits.grace_floor_us + 1]
        if limits.decays:
            places.append(limits.zero_age(size, weighted))
        place = draw(st.sampled_from(places))
        age = draw(
            st.one_of(
                st.integers(-1, 1).map(lambda d, place=place: min(now_us, max(0, place + d))),
                st.integers(0, now_us),
                st.integers(0, 60 * DAY_US),
            )
        )
        drawn.append((passed, total, now_us - age))
    return drawn


@settings(max_examples=300, deadline=None, derandomize=True)
@given(data=st.data(), config=configs)
def test_item_by_item_sum_is_the_exact_formula(data: st.DataObject, config: TrustConfig) -> None:
    items = items_of(data.draw(records_at(NOW_US, config)))
    summed = DecayedSum(decay_limits(config))
    for size, weighted, observed in items:
        summed.add(size, weighted, NOW_US - observed)
    assert summed.value() == exact_decayed_sum(items, NOW_US, config)


def as_records(drawn: list[Drawn], agent: str = "a") -> list[Evidence]:
    """Eval records of drawn (passed, total, observed)."""
    records = []
    for number, (passed, total, observed) in enumerate(drawn):
        records.append(
            parse_evidence(
                {
                    "id": f"{agent}-{number}",
                    "agent_id": agent,
                    "dimension": Dimension.ACCURACY.value,
                    "kind": "eval",
                    "observed_at": (
                        datetime(1970, 1, 1, tzinfo=UTC) + timedelta(microseconds=observed)
                    ).isoformat(),
                    "passed": passed,
                    "total": total,
                }
            )
        )
    return records


@settings(max_examples=150, deadline=None, derandomize=True)
@given(data=st.data(), config=configs, agents=st.integers(1, 3))
def test_one_agent_path_and_batch_engine_reach_the_exact_formula(
    data: st.DataObject, config: TrustConfig, agents: int
) -> None:
    evidence = []
    expected = {}
    for agent in range(agents):
        drawn = data.draw(records_at(NOW_US, config))
        evidence.extend(as_records(drawn, agent=f"agent-{agent}"))
        items = items_of(drawn)
        total = math.fsum(size for size, _, _ in items)
        decayed = exact_decayed_sum(items, NOW_US, config)
        expected[f"agent-{agent}"] = min(100.0, max(0.0, decayed / total))
    batch = compute_trust_scores(EvidenceTable.from_evidence(evidence, config=config), now=NOW)
    for agent_id, score in expected.items():
        one = compute_trust_score(agent_id, evidence, now=NOW, config=config)
        assert one.dimensions[Dimension.ACCURACY].score == score
        assert batch[agent_id] == one


def test_a_golden_decay_is_exact() -> None:
    # 95 at 50 weeks past grace loses exactly 5 points: 90.0, not a float a bit off it.
    items = [(1.0, 95.0, NOW_US - (7 + 350) * DAY_US)]
    summed = DecayedSum(decay_limits(TrustConfig()))
    summed.add(*items[0][:2], NOW_US - items[0][2])
    assert summed.value() == 90.0 == exact_decayed_sum(items, NOW_US, TrustConfig())


@settings(max_examples=200, deadline=None)
@given(
    terms=st.lists(
        st.floats(-1e20, 1e20) | st.sampled_from([0.1, 1e-300, 5e-324, 2.0**60]), max_size=40
    ),
    ages=st.lists(st.integers(0, 2**52 - 1), min_size=40, max_size=40),
)
def test_exact_float_sums_and_products_are_exact(terms: list[float], ages: list[int]) -> None:
    expected = ExactSum()
    for term in terms:
        expected.add(term)
    assert exact_float_sum(terms).fraction() == expected.fraction()
    sizes = np.array([abs(t) + 1.0 for t in terms])
    age = np.array(ages[: len(terms)], dtype=np.int64)
    parts = exact_products(sizes, age)
    assert parts is not None
    summed = exact_float_sum([v for part in parts for v in part.tolist()])
    exact = sum(Fraction(s) * a for s, a in zip(sizes.tolist(), age.tolist(), strict=True))
    assert summed.fraction() == exact


@settings(max_examples=100, deadline=None)
@given(
    rows=st.lists(
        st.tuples(
            st.integers(1, 2**40).map(float) | st.floats(1.0, 1e6),
            st.integers(0, 2**60),
            st.booleans(),
        ),
        min_size=1,
        max_size=80,
    ),
    cut=st.integers(0, 80),
)
def test_batch_decaying_sums_are_exact_on_every_tier(
    rows: list[tuple[float, int, bool]], cut: int
) -> None:
    # Whole sizes in short groups (64-bit integers), then longer groups, fractional sizes or
    # huge ages (float products or item by item): the same exact sums.
    for limit in (2**31, 2**52, 2**61):
        kept = [(s, a) for s, a, keep in rows if keep and a < limit] or [(1.0, 0)]
        size = np.array([s for s, _ in kept])
        age = np.array([a for _, a in kept], dtype=np.int64)
        starts = np.array(sorted({0, min(cut, len(kept) - 1)}), dtype=np.int64)
        ends = [*starts.tolist()[1:], len(kept)]
        bounds = list(zip(starts.tolist(), ends, strict=True))
        groups = np.arange(len(starts))
        for (a, b), (size_sum, size_age) in zip(
            bounds, _decaying_sums(size, age, starts, bounds, groups), strict=True
        ):
            assert size_sum.fraction() == sum(Fraction(s) for s, _ in kept[a:b])
            assert size_age.fraction() == sum(Fraction(s) * t for s, t in kept[a:b])
