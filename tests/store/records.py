"""Evidence records for tests, written out in full so expected scores can be computed by hand."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from trustprobe.store import EvidenceSource, TrustStore, ingest_evidence
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


def fill_two_organisations(store: TrustStore, now: datetime) -> TrustStore:
    """acme: agents alpha (a held swing, review pending) and beta; globex: its own alpha.

    Four batches a minute apart from ``now``, every record observed at ``now``.
    """
    batches = [
        ("acme", [("e1", "alpha", 90), ("e2", "beta", 60), ("e3", "alpha", 88)]),
        ("acme", [("e4", "alpha", 10)]),  # mean(90, 88, 10) = 62.67 → 627: held for review
        ("globex", [("e1", "alpha", 70)]),
        ("acme", [("e5", "beta", 62)]),
    ]
    for minute, (organisation, items) in enumerate(batches):
        ingest_evidence(
            store,
            parsed(*(eval_record(i, a, "accuracy", s, observed_at=now) for i, a, s in items)),
            organisation=organisation,
            now=now + timedelta(minutes=minute),
            source=EvidenceSource.API,
        )
    return store
