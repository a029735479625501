"""Hypothesis invariants of the composite (issue 4, "Tests")."""

from datetime import timedelta

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from tests.trust.evidence_factory import NOW, eval_score
from tests.trust.strategies import SCORE, evidence_lists

from trustprobe.trust import (
    DIMENSION_WEIGHTS,
    Dimension,
    WeightSet,
    compute_trust_score,
)

RUNS = settings(max_examples=40, deadline=None)


@RUNS
@given(evidence=evidence_lists())
def test_composite_stays_within_bounds(evidence: list) -> None:
    score = compute_trust_score("agent-a", evidence, now=NOW)
    if score.composite is None:
        assert score.coverage.covered_count == 0
        return
    assert 0 <= score.composite <= 1000
    assert score.interval is not None
    assert 0 <= score.interval.low <= score.composite <= score.interval.high <= 1000
    for line in score.dimensions.values():
        if line.score is not None:
            assert 0.0 <= line.score <= 100.0
            assert line.raw_score is not None and line.score <= line.raw_score


@RUNS
@given(
    evidence=evidence_lists(),
    dimension=st.sampled_from(list(Dimension)),
    low=SCORE,
    high=SCORE,
    age=st.floats(0, 400),
)
def test_raising_one_dimension_never_lowers_the_composite_unless_a_gate_changes(
    evidence: list, dimension: Dimension, low: float, high: float, age: float
) -> None:
    low, high = min(low, high), max(low, high)
    before = compute_trust_score(
        "agent-a", [*evidence, eval_score(dimension, low, age=age, id="probe")], now=NOW
    )
    after = compute_trust_score(
        "agent-a", [*evidence, eval_score(dimension, high, age=age, id="probe")], now=NOW
    )
    assert before.composite is not None and after.composite is not None
    if before.security_gate.applied == after.security_gate.applied:
        assert after.composite >= before.composite
        assert after.tier.rank >= before.tier.rank
    line_before, line_after = before.dimensions[dimension], after.dimensions[dimension]
    assert line_before.score is not None and line_after.score is not None
    assert line_after.score >= line_before.score


@RUNS
@given(evidence=evidence_lists(), other=evidence_lists(agents=("agent-b",), max_size=10))
def test_evidence_about_someone_else_changes_nothing(evidence: list, other: list) -> None:
    renamed = [e.model_copy(update={"id": "b-" + e.id}) for e in other]
    alone = compute_trust_score("agent-a", evidence, now=NOW)
    assert compute_trust_score("agent-a", [*evidence, *renamed], now=NOW) == alone


@RUNS
@given(evidence=evidence_lists(), null=st.sampled_from(list(Dimension)))
def test_a_null_dimension_changes_nothing(evidence: list, null: Dimension) -> None:
    kept = [e for e in evidence if e.dimension is not null]
    with_null = compute_trust_score("agent-a", kept, now=NOW)
    assert with_null.dimensions[null].score is None
    # Take the null dimension out of the table altogether: zero weight, the rest rescaled.
    scale = 1.0 / (1.0 - DIMENSION_WEIGHTS[null])
    without = {d: (0.0 if d is null else w * scale) for d, w in DIMENSION_WEIGHTS.items()}
    dropped = compute_trust_score("agent-a", kept, now=NOW, weights=WeightSet(without, "override"))
    if with_null.composite_unrounded is None:
        assert dropped.composite_unrounded is None
        return
    assert dropped.composite_unrounded == pytest.approx(with_null.composite_unrounded, abs=1e-9)
    assume(abs(with_null.composite_unrounded % 1.0 - 0.5) > 1e-6)  # clear of a rounding tie
    assert dropped.composite == with_null.composite
    assert dropped.tier == with_null.tier
    for dimension in Dimension:
        a, b = with_null.dimensions[dimension], dropped.dimensions[dimension]
        assert a.effective_weight == pytest.approx(b.effective_weight, abs=1e-12)


@RUNS
@given(evidence=evidence_lists(), data=st.data())
def test_order_and_repeated_ids_change_nothing(evidence: list, data: st.DataObject) -> None:
    shuffled = data.draw(st.permutations(evidence))
    repeats = data.draw(st.lists(st.sampled_from(evidence), max_size=10)) if evidence else []
    reference = compute_trust_score("agent-a", evidence, now=NOW)
    assert compute_trust_score("agent-a", [*shuffled, *repeats], now=NOW) == reference


@RUNS
@given(evidence=evidence_lists(), days=st.floats(0, 2000))
def test_time_passing_never_raises_a_score(evidence: list, days: float) -> None:
    past = [e for e in evidence if e.observed_at <= NOW]
    earlier = compute_trust_score("agent-a", past, now=NOW)
    later = compute_trust_score("agent-a", past, now=NOW + timedelta(days=days))
    for dimension in Dimension:
        a, b = earlier.dimensions[dimension].score, later.dimensions[dimension].score
        assert (a is None) == (b is None)
        if a is not None and b is not None:
            assert b <= a
    if earlier.composite is not None:
        assert later.composite is not None and later.composite <= earlier.composite
        assert later.tier.rank <= earlier.tier.rank
