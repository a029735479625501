"""The dimension functions, one hand-computed case (or more) each."""

import pytest
from tests.trust.evidence_factory import NOW, eval_counts, eval_score, jury, operational

from trustprobe.trust import (
    OPERATIONAL_FUNCTIONS,
    OPERATIONAL_RULES,
    Dimension,
    TrustConfig,
    compute_trust_score,
    item_reading,
)

CONFIG = TrustConfig()
D = Dimension

CASES = [
    # latency: 100 up to the baseline, then 100 × baseline / observed.
    pytest.param(
        operational(D.LATENCY, "latency_ms", 400, baseline_ms=500),
        100.0,
        1.0,
        id="latency-under-baseline",
    ),
    pytest.param(
        operational(D.LATENCY, "latency_ms", 1000, baseline_ms=500),
        50.0,
        1.0,
        id="latency-twice-baseline",
    ),  # 100 × 500 / 1000
    # costEfficiency: 100 × (1 − cost / value).
    pytest.param(
        operational(D.COST_EFFICIENCY, "cost", 0.25, task_value=1.0),
        75.0,
        1.0,
        id="cost-quarter-of-value",
    ),
    pytest.param(
        operational(D.COST_EFFICIENCY, "tokens", 3000, task_value=2000),
        0.0,
        1.0,
        id="cost-over-value",
    ),  # 1 − 1.5 < 0 → 0
    # bond: 100 × min(1, stake / reference).
    pytest.param(
        operational(D.BOND, "stake", 250, reference_stake=1000), 25.0, 1.0, id="bond-quarter"
    ),
    pytest.param(
        operational(D.BOND, "stake", 5000, reference_stake=1000),
        100.0,
        1.0,
        id="bond-over-reference",
    ),
    # evalRigor: 100 × (0.5 × coverage + 0.5 × diversity) = 100 × (0.4 + 0.3).
    pytest.param(
        operational(D.EVAL_RIGOR, "coverage", 0.8, diversity=0.6), 70.0, 1.0, id="eval-rigor"
    ),
    # compliance: 100 × (1 − 10 × 2 / 100) = 80, size = actions.
    pytest.param(
        operational(D.MODEL_COMPLIANCE, "violations", 2, actions=100),
        80.0,
        100.0,
        id="model-compliance",
    ),
    pytest.param(
        operational(D.RUNTIME_COMPLIANCE, "violations", 15, actions=100),
        0.0,
        100.0,
        id="runtime-compliance-floor",
    ),
    # harnessStability: 100 × (1 − 5 / 50) = 90, size = runs.
    pytest.param(
        operational(D.HARNESS_STABILITY, "harness_errors", 5, runs=50), 90.0, 50.0, id="harness"
    ),
    # reliability: 100 × 9 / 12 = 75, size = groups.
    pytest.param(
        operational(D.RELIABILITY, "consistent_groups", 9, groups=12), 75.0, 12.0, id="reliability"
    ),
    # teamwork: 100 × 3 / 4 = 75, size = collaborations.
    pytest.param(
        operational(D.TEAMWORK, "successful_collaborations", 3, collaborations=4),
        75.0,
        4.0,
        id="teamwork",
    ),
    # eval: the score as given (size 1), or 100 × passed / total (size total).
    pytest.param(eval_score(D.SKILL_MASTERY, 64.0), 64.0, 1.0, id="eval-score"),
    pytest.param(eval_counts(D.ACCURACY, 45, 60), 75.0, 60.0, id="eval-counts"),  # 100 × 45 / 60
    # jury: trimmed median, size 1.
    pytest.param(jury(D.SELF_AUDIT, [10, 80, 85, 90, 100]), 85.0, 1.0, id="jury"),
]


@pytest.mark.parametrize(("item", "score", "size"), CASES)
def test_item_readings(item: object, score: float, size: float) -> None:
    reading = item_reading(item, CONFIG)  # type: ignore[arg-type]
    assert reading.score == pytest.approx(score, abs=1e-12)
    assert reading.size == size


def test_every_operational_dimension_has_a_function_and_a_rule() -> None:
    assert set(OPERATIONAL_FUNCTIONS) == set(OPERATIONAL_RULES)
    assert Dimension.SAFETY not in OPERATIONAL_FUNCTIONS  # eval or jury only


def test_dimension_function_parameters_are_configurable() -> None:
    slow = operational(D.LATENCY, "latency_ms", 1000, baseline_ms=500)
    assert item_reading(slow, TrustConfig(latency_tolerance=2.0)).score == 100.0  # 1000 ≤ 2 × 500
    violations = operational(D.MODEL_COMPLIANCE, "violations", 2, actions=100)
    lenient = TrustConfig(compliance_violation_penalty=1.0)
    assert item_reading(violations, lenient).score == pytest.approx(98.0)  # 100 × (1 − 0.02)
    rigor = operational(D.EVAL_RIGOR, "coverage", 0.8, diversity=0.6)
    coverage_only = TrustConfig(eval_rigor_coverage_weight=1.0)
    assert item_reading(rigor, coverage_only).score == pytest.approx(80.0)


def test_items_of_one_dimension_combine_weighted_by_size() -> None:
    evidence = [
        eval_counts(D.ACCURACY, 90, 100),  # 90, size 100
        eval_score(D.ACCURACY, 50.0),  # 50, size 1
    ]
    line = compute_trust_score("agent-a", evidence, now=NOW).dimensions[D.ACCURACY]
    # (100 × 90 + 1 × 50) / (100 + 1) = 9050 / 101
    assert line.score == pytest.approx(9050 / 101)
    assert line.evidence_count == 2


def test_mixed_kinds_combine_in_one_dimension() -> None:
    evidence = [
        operational(D.RELIABILITY, "consistent_groups", 9, groups=10),  # 90, size 10
        jury(D.RELIABILITY, [60, 70]),  # median 65, size 1, low confidence
    ]
    line = compute_trust_score("agent-a", evidence, now=NOW).dimensions[D.RELIABILITY]
    # (10 × 90 + 1 × 65) / 11 = 965 / 11
    assert line.score == pytest.approx(965 / 11)
    assert line.low_confidence is True
