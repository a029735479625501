"""Short constructors for evidence in tests: one fixed clock, ages in days."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from trustprobe.trust import Dimension, EvalEvidence, JuryEvidence, OperationalEvidence

NOW = datetime(2025, 6, 1, 12, 0, tzinfo=UTC)


def at(age_days: float) -> datetime:
    return NOW - timedelta(days=age_days)


def eval_score(
    dimension: Dimension, score: float, *, age: float = 0.0, agent: str = "agent-a", id: str = ""
) -> EvalEvidence:
    return EvalEvidence(
        id=id or f"{agent}-{dimension.value}-{score}-{age}",
        agent_id=agent,
        dimension=dimension,
        observed_at=at(age),
        score=score,
    )


def eval_counts(
    dimension: Dimension,
    passed: int,
    total: int,
    *,
    age: float = 0.0,
    agent: str = "agent-a",
    id: str = "",
) -> EvalEvidence:
    return EvalEvidence(
        id=id or f"{agent}-{dimension.value}-{passed}of{total}-{age}",
        agent_id=agent,
        dimension=dimension,
        observed_at=at(age),
        passed=passed,
        total=total,
    )


def jury(
    dimension: Dimension,
    scores: list[float],
    *,
    age: float = 0.0,
    agent: str = "agent-a",
    id: str = "",
) -> JuryEvidence:
    return JuryEvidence(
        id=id or f"{agent}-{dimension.value}-jury-{age}-{len(scores)}",
        agent_id=agent,
        dimension=dimension,
        observed_at=at(age),
        scores=scores,
    )


def operational(
    dimension: Dimension,
    metric: str,
    value: float,
    *,
    age: float = 0.0,
    agent: str = "agent-a",
    id: str = "",
    **fields: Any,
) -> OperationalEvidence:
    return OperationalEvidence(
        id=id or f"{agent}-{dimension.value}-{metric}-{value}-{age}",
        agent_id=agent,
        dimension=dimension,
        observed_at=at(age),
        metric=metric,
        value=value,
        **fields,
    )


def everywhere(score: float, *, agent: str = "agent-a", age: float = 0.0) -> list[EvalEvidence]:
    """One eval of ``score`` in each of the 16 dimensions."""
    return [eval_score(d, score, agent=agent, age=age) for d in Dimension]
