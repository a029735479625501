"""Hypothesis strategies for evidence of every kind and dimension."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from hypothesis import strategies as st
from tests.trust.evidence_factory import NOW

from trustprobe.trust import (
    Dimension,
    EvalEvidence,
    JuryEvidence,
    OperationalEvidence,
)

D = Dimension
SCORE = st.floats(0, 100, allow_nan=False)
AGE_US = st.integers(-5 * 86_400_000_000, 1500 * 86_400_000_000)  # a few items in the future


@st.composite
def operational_fields(draw: st.DrawFn, dimension: Dimension) -> dict[str, Any]:
    if dimension is D.LATENCY:
        return {
            "metric": "latency_ms",
            "value": draw(st.floats(0, 5000)),
            "baseline_ms": draw(st.floats(1, 2000)),
        }
    if dimension is D.COST_EFFICIENCY:
        return {
            "metric": draw(st.sampled_from(["cost", "tokens"])),
            "value": draw(st.floats(0, 10)),
            "task_value": draw(st.floats(0.1, 10)),
        }
    if dimension is D.BOND:
        return {
            "metric": "stake",
            "value": draw(st.floats(0, 2000)),
            "reference_stake": draw(st.floats(1, 1000)),
        }
    if dimension is D.EVAL_RIGOR:
        return {
            "metric": "coverage",
            "value": draw(st.floats(0, 1)),
            "diversity": draw(st.floats(0, 1)),
        }
    counted = {
        D.MODEL_COMPLIANCE: ("violations", "actions"),
        D.RUNTIME_COMPLIANCE: ("violations", "actions"),
        D.HARNESS_STABILITY: ("harness_errors", "runs"),
        D.RELIABILITY: ("consistent_groups", "groups"),
        D.TEAMWORK: ("successful_collaborations", "collaborations"),
    }
    metric, field = counted[dimension]
    total = draw(st.integers(1, 500))
    return {"metric": metric, "value": float(draw(st.integers(0, total))), field: total}


OPERATIONAL_DIMENSIONS = [
    D.LATENCY,
    D.COST_EFFICIENCY,
    D.BOND,
    D.EVAL_RIGOR,
    D.MODEL_COMPLIANCE,
    D.RUNTIME_COMPLIANCE,
    D.HARNESS_STABILITY,
    D.RELIABILITY,
    D.TEAMWORK,
]


@st.composite
def evidence_item(
    draw: st.DrawFn, item_id: str, agents: tuple[str, ...] = ("agent-a",)
) -> EvalEvidence | JuryEvidence | OperationalEvidence:
    common = {
        "id": item_id,
        "agent_id": draw(st.sampled_from(agents)),
        "observed_at": NOW - timedelta(microseconds=draw(AGE_US)),
    }
    kind = draw(st.sampled_from(["eval-score", "eval-counts", "jury", "operational"]))
    if kind == "operational":
        dimension = draw(st.sampled_from(OPERATIONAL_DIMENSIONS))
        return OperationalEvidence(
            dimension=dimension, **common, **draw(operational_fields(dimension))
        )
    dimension = draw(st.sampled_from(list(Dimension)))
    if kind == "eval-score":
        return EvalEvidence(dimension=dimension, score=draw(SCORE), **common)
    if kind == "eval-counts":
        total = draw(st.integers(1, 300))
        return EvalEvidence(
            dimension=dimension, passed=draw(st.integers(0, total)), total=total, **common
        )
    scores = draw(st.lists(SCORE, min_size=1, max_size=12))
    return JuryEvidence(dimension=dimension, scores=scores, **common)


@st.composite
def evidence_lists(
    draw: st.DrawFn, agents: tuple[str, ...] = ("agent-a",), max_size: int = 24, min_size: int = 0
) -> list[EvalEvidence | JuryEvidence | OperationalEvidence]:
    size = draw(st.integers(min_size, max_size))
    return [draw(evidence_item(f"ev-{i:04d}", agents)) for i in range(size)]
