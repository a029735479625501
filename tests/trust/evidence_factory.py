"""Short constructors for evidence in tests: one fixed clock, ages in days."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from trustprobe.trust import Dimension, EvalEvidence, JuryEvidence, OperationalEvidence

NOW = datetime(2025, 6, 1, 12, 0, tzinfo=UTC)

E = TypeVar("E", EvalEvidence, JuryEvidence, OperationalEvidence)


def at(age_days: float) -> datetime:
    return NOW - timedelta(days=age_days)


def evidence(
    kind: type[E],
    dimension: Dimension,
    label: str,
    *,
    age: float,
    agent: str,
    id: str,
    **fields: Any,
) -> E:
    """One item of ``kind`` observed ``age`` days before ``NOW``.

    Without an ``id``, one is built from the agent, the dimension and ``label``.
    """
    return kind(
        id=id or f"{agent}-{dimension.value}-{label}",
        agent_id=agent,
        dimension=dimension,
        observed_at=at(age),
        **fields,
    )


def eval_score(
    dimension: Dimension, score: float, *, age: float = 0.0, agent: str = "agent-a", id: str = ""
) -> EvalEvidence:
    return evidence(
        EvalEvidence, dimension, f"{score}-{age}", age=age, agent=agent, id=id, score=score
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
    label = f"{passed}of{total}-{age}"
    return evidence(
        EvalEvidence, dimension, label, age=age, agent=agent, id=id, passed=passed, total=total
    )


def jury(
    dimension: Dimension,
    scores: list[float],
    *,
    age: float = 0.0,
    agent: str = "agent-a",
    id: str = "",
) -> JuryEvidence:
    label = f"jury-{age}-{len(scores)}"
    return evidence(JuryEvidence, dimension, label, age=age, agent=agent, id=id, scores=scores)


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
    label = f"{metric}-{value}-{age}"
    return evidence(
        OperationalEvidence,
        dimension,
        label,
        age=age,
        agent=agent,
        id=id,
        metric=metric,
        value=value,
        **fields,
    )


def everywhere(score: float, *, agent: str = "agent-a", age: float = 0.0) -> list[EvalEvidence]:
    """One eval of ``score`` in each of the 16 dimensions."""
    return [eval_score(d, score, agent=agent, age=age) for d in Dimension]


def record_fields(**changes: Any) -> dict[str, Any]:
    """An evaluation record as one line of an evidence file holds it, with ``changes``.

    A change to ``None`` leaves that field out.
    """
    record: dict[str, Any] = {
        "id": "e-1",
        "agent_id": "a",
        "dimension": "safety",
        "kind": "eval",
        "observed_at": "2026-03-01T00:00:00Z",
        "score": 50,
    }
    record.update(changes)
    return {k: v for k, v in record.items() if v is not None}
