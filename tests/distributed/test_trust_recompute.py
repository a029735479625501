"""Recomputing many agents' trust from PostgreSQL on the cluster equals doing it on one machine."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from distributed import Client
from sqlalchemy import select

from tests.store.databases import postgres_schema
from tests.store.records import eval_record, parsed
from trustprobe.distributed import (
    append_scores,
    organisation_agents,
    recompute_trust,
    score_agents,
)
from trustprobe.store import (
    EvidenceSource,
    TrustStore,
    ingest_evidence,
    open_store,
    verify_store,
)
from trustprobe.store.schema import ReviewRow, TransitionRow

T0 = datetime(2021, 1, 4, 9, 0, tzinfo=UTC)
# Five years on, every T0 item has lost 0.1 points a week beyond the 7-day grace: about 26
# points of 100, i.e. about 260 composite points, unless it hits 0 first. An agent at 90 swings
# by more than 200 (held for review); an agent at 15 floors at 0 and swings by only 150.
LATER = T0 + timedelta(days=5 * 365)
DIMENSIONS = ("accuracy", "reliability", "safety", "security")
AGENTS = 40


def _records() -> list[dict[str, Any]]:
    records = []
    for agent in range(AGENTS):
        score = 15.0 + (agent * 37) % 80  # 15..94: some swing past 200, some cannot
        for number, dimension in enumerate(DIMENSIONS):
            records.append(
                eval_record(
                    f"ev-{agent:03d}-{number}",
                    f"agent-{agent:03d}",
                    dimension,
                    min(100.0, score + number),
                    observed_at=T0,
                )
            )
    return records


@pytest.fixture
def twin_stores() -> Iterator[tuple[TrustStore, TrustStore]]:
    """Two PostgreSQL stores (fresh schemas) holding the same evidence, ingested identically."""
    with postgres_schema() as first_url, postgres_schema() as second_url:
        stores = (open_store(first_url, upgrade=True), open_store(second_url, upgrade=True))
        try:
            for store in stores:
                ingest_evidence(
                    store,
                    parsed(*_records()),
                    organisation="acme",
                    now=T0,
                    source=EvidenceSource.API,
                )
            yield stores
        finally:
            for store in stores:
                store.close()


def _history(store: TrustStore) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    with store.engine.connect() as connection:
        transitions = [
            tuple(row)
            for row in connection.execute(select(TransitionRow).order_by(TransitionRow.seq))
        ]
        reviews = [
            tuple(row) for row in connection.execute(select(ReviewRow).order_by(ReviewRow.id))
        ]
    return transitions, reviews


@pytest.mark.postgres
def test_cluster_recomputation_appends_the_one_machine_history(
    client: Client, twin_stores: tuple[TrustStore, TrustStore]
) -> None:
    local, distributed = twin_stores
    for now in (LATER, LATER + timedelta(weeks=1)):  # the second supersedes the first's reviews
        on_one = recompute_trust(local, organisation="acme", now=now)
        on_cluster = recompute_trust(
            distributed, organisation="acme", now=now, client=client, agents_per_partition=7
        )
        assert on_cluster.partitions == 6  # 40 agents, 7 per task
        assert on_cluster.recomputed_on_client == 0
        assert (on_one.transitions, on_one.pending_reviews) == (
            on_cluster.transitions,
            on_cluster.pending_reviews,
        )
        assert 0 < len(on_cluster.pending_reviews) < AGENTS  # some swings held, some not
    transitions, reviews = _history(distributed)
    assert (transitions, reviews) == _history(local)  # every column, every hash
    assert len(transitions) == 3 * AGENTS  # first score, then two recomputations
    superseded = [
        r for r in reviews if r[ReviewRow.__table__.columns.keys().index("status")] == "superseded"
    ]
    assert len(superseded) == len(on_one.pending_reviews)
    assert verify_store(distributed).ok


@pytest.mark.postgres
def test_agent_whose_evidence_grew_meanwhile_is_rescored_under_the_lock(
    twin_stores: tuple[TrustStore, TrustStore],
) -> None:
    local, distributed = twin_stores
    agents = organisation_agents(distributed, "acme")
    # Scores computed as a worker would (same function, same database), before new evidence.
    computed = {
        item.pk: item
        for item in score_agents(
            distributed.engine.url.render_as_string(hide_password=False),
            agents,
            now=LATER,
            config=distributed.config,
            weights=distributed.weights,
        )
    }
    late = parsed(eval_record("ev-late", "agent-003", "accuracy", 99.0, observed_at=LATER))
    for store in (local, distributed):
        ingest_evidence(store, late, organisation="acme", now=LATER, source=EvidenceSource.API)
    appended, on_client = append_scores(
        distributed, organisation="acme", agents=agents, computed=computed, now=LATER
    )
    assert on_client == 1  # agent-003 only
    expected = recompute_trust(local, organisation="acme", now=LATER)
    assert [seq for seq, _ in appended] == list(expected.transitions)
    assert _history(distributed) == _history(local)
