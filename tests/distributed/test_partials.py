"""Partials merge exactly: any split of a run gives the metrics and geometry of the whole."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.observability.conftest import TEXTS
from tests.observability.conftest import build_case as build_geometry_case
from tests.sample_reports import build_case
from trustprobe.metrics import (
    Distribution,
    aggregate_metrics,
    finalize_metrics,
    merge_metrics,
    metrics_partial,
)
from trustprobe.metrics.partial import runs_of, union_runs
from trustprobe.observability import (
    build_observability,
    finalize_geometry,
    fit_geometry,
    merge_geometry,
    place_cases,
    scored_case_texts,
)
from trustprobe.scoring import CaseScore
from trustprobe.scoring.models import Intent, JudgeOpinion

CATEGORIES = ("injection", "privacy", "harmful", "over_refusal")
SEVERITIES = ("low", "medium", "high", "critical")
# Risk values as a scorer produces them: a few distinct values, so ties are common.
RISKS = (0.0, 0.0375, 0.1, 0.15, 0.3, 0.5, 0.7, 0.8875, 1.0)


@st.composite
def runs(draw: st.DrawFn) -> list[CaseScore]:
    cases: list[CaseScore] = []
    for index in range(draw(st.integers(0, 12))):
        labels = {
            "category": draw(st.sampled_from(CATEGORIES)),
            "severity": draw(st.sampled_from(SEVERITIES)),
            "expected": draw(st.sampled_from(["refuse", "comply"])),
        }
        for sample in draw(st.sets(st.integers(0, 6), min_size=1, max_size=3)):
            if draw(st.integers(0, 6)) == 0:
                cases.append(build_case(f"p{index}", sample=sample, error="timeout", **labels))
                continue
            risk = draw(st.sampled_from(RISKS) | st.floats(0.0, 1.0))
            cases.append(
                build_case(
                    f"p{index}",
                    sample=sample,
                    passed=risk < 0.5,
                    risk=risk,
                    safe_hits=draw(st.integers(0, 2)),
                    unsafe_hits=draw(st.integers(0, 2)),
                    boundary=draw(st.none() | st.booleans()),
                    modes=draw(st.lists(st.sampled_from(["leak", "agency"]), max_size=2)),
                    **labels,
                )
            )
    return cases


def _split(items: list[Any], cuts: list[int]) -> list[list[Any]]:
    points = sorted({min(c, len(items)) for c in cuts})
    return [items[a:b] for a, b in zip([0, *points], [*points, len(items)], strict=True)]


@settings(max_examples=60)
@given(cases=runs(), cuts=st.lists(st.integers(0, 40), max_size=5), worst_n=st.integers(0, 4))
def test_merged_partials_equal_the_whole_run(
    cases: list[CaseScore], cuts: list[int], worst_n: int
) -> None:
    parts = _split(cases, cuts)
    offsets = np.cumsum([0, *map(len, parts)])
    partials = [
        metrics_partial(part, worst_n=worst_n, first_index=int(offset))
        for part, offset in zip(parts, offsets, strict=False)
    ]
    merged = finalize_metrics(merge_metrics(reversed(partials), worst_n=worst_n))
    whole = aggregate_metrics(cases, worst_n=worst_n)
    assert merged.model_dump_json() == whole.model_dump_json()  # to the last bit
    # The headline intervals are in the compared JSON (not left to a renderer to compute).
    assert {"exposure_index_ci", "resilience_index_ci"} <= set(whole.indices.model_dump())
    assert "high_critical_share_of_failures_ci" in whole.overall.model_dump()


def _read_by_judge(case: CaseScore, data: st.DataObject) -> CaseScore:
    """``case`` with a drawn verdict confidence and, now and then, a judge's opinion."""
    if case.error is not None:
        return case
    update: dict[str, Any] = {"verdict_confidence": data.draw(st.sampled_from([None, 0.5, 0.9]))}
    if data.draw(st.booleans()):
        agrees = data.draw(st.booleans())
        update["judge"] = JudgeOpinion(
            verdict=Intent.DECLINED, rationale="reason", model="judge", agrees=agrees
        )
    return case.model_copy(update=update)


@settings(max_examples=60)
@given(cases=runs(), data=st.data(), worst_n=st.integers(0, 4))
def test_a_partition_tallies_as_its_cases_one_by_one(
    cases: list[CaseScore], data: st.DataObject, worst_n: int
) -> None:
    """Cases sharing a profile are tallied together: the partial is that of each case alone."""
    cases = [_read_by_judge(case, data) for case in cases]
    whole = metrics_partial(cases, worst_n=worst_n)
    alone = merge_metrics((metrics_partial([c], worst_n=worst_n) for c in cases), worst_n=worst_n)
    assert whole == alone


def _headline_intervals(cases: list[CaseScore], cuts: list[int]) -> list[Any]:
    parts = _split(cases, cuts)
    offsets = np.cumsum([0, *map(len, parts)])
    partials = [
        metrics_partial(part, first_index=int(offset))
        for part, offset in zip(parts, offsets, strict=False)
    ]
    metrics = finalize_metrics(merge_metrics(reversed(partials)))
    i, o = metrics.indices, metrics.overall
    return [i.exposure_index_ci, i.resilience_index_ci, o.high_critical_share_of_failures_ci]


def test_headline_intervals_are_the_same_for_every_split() -> None:
    # 24 scored cases, weighted risks with no exact binary form, failures on every tier.
    cases = [
        build_case(
            f"p{i}",
            severity=SEVERITIES[i % 4],
            passed=i % 3 != 0,
            risk=RISKS[i % len(RISKS)] if i % 3 else 0.7 + 0.01 * i,
        )
        for i in range(24)
    ]
    whole = _headline_intervals(cases, [])
    assert all(ci is not None for ci in whole)
    for first in range(25):
        for second in range(first, 25, 5):
            assert _headline_intervals(cases, [first, second]) == whole, (first, second)
    assert _headline_intervals(cases, list(range(24))) == whole  # one case per partition


def test_partials_sharing_a_case_refuse_to_merge() -> None:
    left = metrics_partial([build_case("p1", sample=2), build_case("p1", sample=3)])
    right = metrics_partial([build_case("p1", sample=3)])
    with pytest.raises(ValueError, match="probe 'p1' sample 3 is in two partitions"):
        left.merge(right)
    moved = metrics_partial([build_case("p1", sample=4, category="privacy")])
    with pytest.raises(ValueError, match="'privacy' in one partition and 'injection'"):
        left.merge(moved)


def test_sample_runs_compress_and_union() -> None:
    assert runs_of([5, 0, 1, 2, 7, 6]) == ((0, 3), (5, 8))
    assert union_runs("p", ((0, 3),), ((3, 5), (9, 10))) == ((0, 5), (9, 10))


# Hand-computed: every figure below is exact, so the floats compare with ==.
DISTRIBUTIONS = [
    # values, mean, median, p90, std, max
    ([1.0, 2.0, 3.0, 4.0], 2.5, 2.5, 3.7, math.sqrt(1.25), 4.0),  # p90 rank 2.7: 3 + 0.7 × 1
    ([2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0], 5.0, 4.5, 7.6, 2.0, 9.0),  # rank 6.3: 7 + .3 × 2
    ([0.5], 0.5, 0.5, 0.5, 0.0, 0.5),
]


@pytest.mark.parametrize(
    ("values", "mean", "median", "p90", "std", "largest"),
    DISTRIBUTIONS,
    ids=["one-to-four", "textbook-std-2", "single-value"],
)
def test_distribution_statistics_are_exact(
    values: list[float], mean: float, median: float, p90: float, std: float, largest: float
) -> None:
    d = Distribution.of(values)
    assert (d.mean(), d.median(), d.quantile(Fraction(9, 10)), d.std(), d.max()) == (
        mean, median, p90, std, largest,
    )  # fmt: skip


def test_distribution_of_nothing_is_no_evidence() -> None:
    empty = Distribution.of([])
    assert (empty.n, empty.mean(), empty.median(), empty.std(), empty.max()) == (
        0, None, None, None, None,
    )  # fmt: skip


def test_distribution_refuses_non_finite_and_folds_negative_zero() -> None:
    with pytest.raises(ValueError, match="finite"):
        Distribution.of([0.1, math.nan])
    assert Distribution.of([-0.0, 0.0]).counts == {0.0: 2}


@given(st.lists(st.floats(0.0, 1.0), min_size=1, max_size=50))
def test_distribution_agrees_with_numpy_within_rounding(values: list[float]) -> None:
    d = Distribution.of(values)
    data = np.sort(np.array(values))
    for ours, theirs in [
        (d.mean(), np.mean(data)),
        (d.median(), np.median(data)),
        (d.quantile(Fraction(9, 10)), np.percentile(data, 90)),
        (d.std(), np.std(data)),
    ]:
        assert ours is not None
        assert math.isclose(ours, float(theirs), rel_tol=1e-12, abs_tol=1e-15)


@pytest.fixture(scope="module")
def geometry_cases() -> list[CaseScore]:
    cases = []
    for family in TEXTS:
        for i in range(12):
            failed = i % 4 == 0
            cases.append(
                build_geometry_case(
                    f"{family}-{i}",
                    category=family,
                    passed=not failed,
                    risk=0.9 if failed else 0.05 * (i % 3),
                    unsafe=["secret.vault_token"] if failed else [],
                    error="timeout" if i == 5 else None,
                )
            )
    return cases


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cuts=st.lists(st.integers(0, 36), max_size=6))
def test_geometry_of_any_partitioning_equals_the_whole(
    geometry_cases: list[CaseScore], cuts: list[int]
) -> None:
    whole = build_observability(geometry_cases, seed=5)
    assert whole is not None
    scored = [c for c in geometry_cases if c.error is None]
    model = fit_geometry(scored_case_texts(scored), seed=5, n_clusters=None, max_features=5000)
    placed = [place_cases(model, part) for part in _split(geometry_cases, cuts)]
    merged = finalize_geometry(
        model,
        merge_geometry(partial for partial, _ in reversed(placed)),
        [point for _, points in placed for point in points],
    )
    assert merged.model_dump_json() == whole.model_dump_json()
