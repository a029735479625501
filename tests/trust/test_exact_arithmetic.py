"""Where the rules are exact, so is the arithmetic: ties round half up, the weight-sum bound is
inclusive, the security gate reports itself without a composite, and both paths refuse an
evidence id two agents share with different content."""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.trust.evidence_factory import NOW, eval_score
from tests.trust.strategies import evidence_lists

from trustprobe.errors import InputError
from trustprobe.trust import (
    DIMENSION_WEIGHTS,
    Dimension,
    EvidenceTable,
    Tier,
    TrustConfig,
    check_weight_sum,
    compute_trust_score,
    compute_trust_scores,
    merge_weights,
    resolve_weights,
)

D = Dimension


def _both_paths(evidence: list, **kwargs: object) -> tuple[object, object]:
    single = compute_trust_score("agent-a", evidence, now=NOW, **kwargs)  # type: ignore[arg-type]
    batch = compute_trust_scores(EvidenceTable.from_evidence(evidence), now=NOW, **kwargs)  # type: ignore[arg-type]
    return single, batch["agent-a"]


def test_a_composite_of_exactly_399_5_rounds_up_to_bronze() -> None:
    evidence = [eval_score(D.ACCURACY, 35.0), eval_score(D.SAFETY, 46.0)]
    for score in _both_paths(evidence):
        # 10 × (0.11 × 35 + 0.09 × 46) / 0.20 = 10 × 7.99 / 0.2 = 399.5 exactly (floats give
        # 399.49999999999994), and half rounds up: 400, bronze.
        assert score.composite == 400  # type: ignore[attr-defined]
        assert score.composite_unrounded == 399.5  # type: ignore[attr-defined]
        assert score.tier is Tier.BRONZE  # type: ignore[attr-defined]


@settings(max_examples=200)
@given(accuracy=st.integers(0, 100), safety=st.integers(0, 100))
def test_integer_scores_round_half_up_exactly(accuracy: int, safety: int) -> None:
    evidence = [eval_score(D.ACCURACY, float(accuracy)), eval_score(D.SAFETY, float(safety))]
    # 10 × (0.11 a + 0.09 s) / 0.2 = 5.5 a + 4.5 s: an exact x.5 whenever a + s is odd.
    exact = Fraction(11, 2) * accuracy + Fraction(9, 2) * safety
    for score in _both_paths(evidence):
        assert score.composite == math.floor(exact + Fraction(1, 2))  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("override", "accepted"),
    [
        pytest.param({"accuracy": 0.111}, True, id="sum-1.001"),
        pytest.param({"accuracy": 0.109}, True, id="sum-0.999"),
        pytest.param({"accuracy": 0.1111}, False, id="sum-1.0011"),
        pytest.param({"accuracy": 0.1089}, False, id="sum-0.9989"),
    ],
)
def test_the_weight_sum_bound_is_inclusive(override: dict, accepted: bool) -> None:
    weights = merge_weights({D(k): v for k, v in override.items()})
    assert (weights.source == "override") is accepted, weights.warning


def test_an_override_file_summing_to_1_001_is_in_force(tmp_path: Path) -> None:
    # 0.11 → 0.111: the merged sum is 1.001, which float addition makes 1.0010000000000001.
    path = tmp_path / "w.json"
    path.write_text(json.dumps({"accuracy": 0.111}), encoding="utf-8")
    weights = resolve_weights(TrustConfig(), override_path=path, environ={})
    assert (weights.source, weights.warning) == ("override", None)


def test_the_security_gate_applies_even_without_a_composite() -> None:
    # Security carries no weight, so the only covered dimension leaves the composite null;
    # its score of 40 is still below 60, and the gate says so.
    weights = merge_weights({D.SECURITY: 0.0, D.LATENCY: 0.14})
    assert weights.source == "override"
    for score in _both_paths([eval_score(D.SECURITY, 40.0)], weights=weights):
        assert score.composite is None  # type: ignore[attr-defined]
        gate = score.security_gate  # type: ignore[attr-defined]
        assert gate.applied is True
        assert gate.security_score == 40.0
        assert gate.capped is False
        assert gate.reason is not None and "below 60" in gate.reason
        assert score.tier is Tier.UNRATED  # type: ignore[attr-defined]


def test_the_single_agent_path_refuses_an_id_another_agent_reuses() -> None:
    mine = eval_score(D.ACCURACY, 80.0, id="shared-id")
    theirs = eval_score(D.ACCURACY, 20.0, agent="agent-b", id="shared-id")
    with pytest.raises(InputError, match="'shared-id' appears twice with different content"):
        compute_trust_score("agent-a", [mine, theirs], now=NOW)
    with pytest.raises(InputError, match="'shared-id' appears twice with different content"):
        compute_trust_scores(EvidenceTable.from_evidence([mine, theirs]), now=NOW)


@settings(max_examples=60, deadline=None)
@given(
    evidence=evidence_lists(agents=("agent-a", "agent-b"), min_size=2, max_size=12),
    data=st.data(),
)
def test_single_and_batch_paths_agree_on_reused_ids(evidence: list, data: st.DataObject) -> None:
    """Copy some items' ids onto others: both paths refuse, or both give the same scores."""
    items = list(evidence)
    index = st.integers(0, len(items) - 1)
    for source, target in data.draw(st.lists(st.tuples(index, index), min_size=1, max_size=3)):
        items[target] = items[target].model_copy(update={"id": items[source].id})
    agents = sorted({e.agent_id for e in items})
    outcomes = []
    for path in ("single", "batch"):
        try:
            if path == "single":
                outcomes.append({a: compute_trust_score(a, items, now=NOW) for a in agents})
            else:
                outcomes.append(compute_trust_scores(EvidenceTable.from_evidence(items), now=NOW))
        except InputError as exc:
            assert "appears twice with different content" in str(exc)
            outcomes.append("refused")
    assert outcomes[0] == outcomes[1]


def test_the_import_guard_accepts_a_sum_of_exactly_1_001() -> None:
    nearly = dict(DIMENSION_WEIGHTS) | {D.ACCURACY: 0.111}
    assert check_weight_sum(nearly) == pytest.approx(1.001)
