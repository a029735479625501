"""Evidence records for tests, written out in full so expected scores can be computed by hand."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from trustprobe.trust import Evidence, parse_evidence


def eval_record(
    evidence_id: str, agent_id: str, dimension: str, score: float, *, observed_at: datetime
) -> dict[str, Any]:
    """An ``eval`` record with a 0–100 score (observed at ``now``: no decay)."""
    return {
        "id": evidence_id,
        "agent_id": agent_id,
        "dimension": dimension,
        "observed_at": observed_at.isoformat(),
        "kind": "eval",
        "score": score,
    }


def parsed(*records: dict[str, Any]) -> list[Evidence]:
    return [parse_evidence(record) for record in records]
