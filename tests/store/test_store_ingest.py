from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import func, select, text

from tests.store.conftest import NOW
from tests.store.records import eval_record, parsed
from trustprobe.store import (
    EvidenceSource,
    TrustStore,
    canonical_score,
    ingest_evidence,
    score_history,
    verify_store,
)
from trustprobe.store import evidence as evidence_module
from trustprobe.store.schema import EvidenceRow, TransitionRow


def _count(store: TrustStore, table: str) -> int:
    with store.engine.connect() as connection:
        return int(connection.execute(text(f"SELECT count(*) FROM {table}")).scalar_one())


def test_new_records_are_accepted_and_rescore_each_agent_once(store: TrustStore) -> None:
    records = parsed(
        eval_record("e1", "alpha", "accuracy", 90, observed_at=NOW),
        eval_record("e2", "alpha", "safety", 80, observed_at=NOW),
        eval_record("e3", "beta", "accuracy", 50, observed_at=NOW),
    )
    result = ingest_evidence(
        store, records, organisation="acme", now=NOW, source=EvidenceSource.API
    )
    assert (result.accepted, result.duplicate, result.rejected) == (3, 0, [])
    assert len(result.transitions) == 2  # one per agent, not one per record
    # alpha: (0.11 × 90 + 0.09 × 80) / (0.11 + 0.09) = 17.1 / 0.2 = 85.5 → × 10 = 855
    alpha = canonical_score(store, organisation="acme", agent_id="alpha")
    assert alpha.score.composite == 855
    # beta: accuracy alone → 10 × 50 = 500
    assert canonical_score(store, organisation="acme", agent_id="beta").score.composite == 500
    page = score_history(store, organisation="acme", agent_id="alpha")
    assert [t.trigger for t in page.transitions] == ["evidence:2 via api"]


def test_resending_the_same_records_is_a_no_op(store: TrustStore) -> None:
    records = parsed(
        eval_record("e1", "alpha", "accuracy", 90, observed_at=NOW),
        eval_record("e2", "alpha", "safety", 80, observed_at=NOW),
    )
    ingest_evidence(store, records, organisation="acme", now=NOW, source=EvidenceSource.API)
    again = ingest_evidence(store, records, organisation="acme", now=NOW, source=EvidenceSource.API)
    assert (again.accepted, again.duplicate, again.rejected, again.transitions) == (0, 2, [], [])
    assert _count(store, "evidence") == 2
    assert _count(store, "score_history") == 1  # nothing new, so no recomputation


@pytest.mark.parametrize(
    "evidence_id", ['quote"d', "back\\slash", "é-日本-🙂", "line\u2028sep", "[1,2]", "x" * 200]
)
def test_stored_ids_of_any_spelling_are_found_again(store: TrustStore, evidence_id: str) -> None:
    sent = parsed(eval_record(evidence_id, "alpha", "accuracy", 90, observed_at=NOW))
    first = ingest_evidence(store, sent, organisation="acme", now=NOW, source=EvidenceSource.API)
    again = ingest_evidence(store, sent, organisation="acme", now=NOW, source=EvidenceSource.API)
    assert (first.accepted, again.accepted, again.duplicate) == (1, 0, 1)
    other = parsed(eval_record(evidence_id, "alpha", "accuracy", 10, observed_at=NOW))
    refused = ingest_evidence(store, other, organisation="acme", now=NOW, source=EvidenceSource.API)
    assert [r.evidence_id for r in refused.rejected] == [evidence_id]


def test_same_id_with_other_content_is_rejected_and_never_overwrites(store: TrustStore) -> None:
    ingest_evidence(
        store,
        parsed(eval_record("e1", "alpha", "accuracy", 90, observed_at=NOW)),
        organisation="acme",
        now=NOW,
        source=EvidenceSource.API,
    )
    result = ingest_evidence(
        store,
        parsed(
            eval_record("e2", "alpha", "safety", 70, observed_at=NOW),
            eval_record("e1", "alpha", "accuracy", 10, observed_at=NOW),
        ),
        organisation="acme",
        now=NOW,
        source=EvidenceSource.API,
    )
    assert result.accepted == 1
    assert [(r.index, r.evidence_id) for r in result.rejected] == [(1, "e1")]
    assert "already stored with different content" in result.rejected[0].reason
    with store.engine.connect() as connection:
        content = connection.execute(
            select(EvidenceRow.content).where(EvidenceRow.evidence_id == "e1")
        ).scalar_one()
    assert '"score":90' in content


def test_conflicts_inside_one_batch_are_rejected(store: TrustStore) -> None:
    result = ingest_evidence(
        store,
        parsed(
            eval_record("e1", "alpha", "accuracy", 90, observed_at=NOW),
            eval_record("e1", "alpha", "accuracy", 90, observed_at=NOW),
            eval_record("e1", "alpha", "accuracy", 20, observed_at=NOW),
        ),
        organisation="acme",
        now=NOW,
        source=EvidenceSource.CLI,
        positions=[3, 4, 7],  # file line numbers
    )
    assert (result.accepted, result.duplicate) == (1, 1)
    assert [(r.index, r.evidence_id) for r in result.rejected] == [(7, "e1")]
    assert "earlier in this batch (record 3)" in result.rejected[0].reason


def test_the_same_id_in_two_organisations_is_two_records(store: TrustStore) -> None:
    for organisation, score in (("acme", 90), ("globex", 30)):
        result = ingest_evidence(
            store,
            parsed(eval_record("e1", "alpha", "accuracy", score, observed_at=NOW)),
            organisation=organisation,
            now=NOW,
            source=EvidenceSource.API,
        )
        assert result.accepted == 1
    assert canonical_score(store, organisation="acme", agent_id="alpha").score.composite == 900
    assert canonical_score(store, organisation="globex", agent_id="alpha").score.composite == 300


def _ingest_a_second_batch(store: TrustStore) -> None:
    """Two records an hour after the first batch: one for a known agent, one for a new one."""
    ingest_evidence(
        store,
        parsed(
            eval_record("e2", "alpha", "safety", 50, observed_at=NOW),
            eval_record("e3", "gamma", "safety", 50, observed_at=NOW),
        ),
        organisation="acme",
        now=NOW + timedelta(hours=1),
        source=EvidenceSource.API,
    )


def test_an_error_while_rescoring_leaves_nothing_half_ingested(store: TrustStore) -> None:
    ingest_evidence(
        store,
        parsed(eval_record("e1", "alpha", "accuracy", 90, observed_at=NOW)),
        organisation="acme",
        now=NOW,
        source=EvidenceSource.API,
    )
    # A store whose weights are broken fails in the trust engine, after the evidence rows of
    # the batch were inserted: the whole transaction must roll back.
    broken = TrustStore(store.engine, weights=object())  # type: ignore[arg-type]
    with pytest.raises(Exception):  # noqa: B017 - whatever the engine raises
        _ingest_a_second_batch(broken)
    assert _count(store, "evidence") == 1
    assert _count(store, "score_history") == 1
    assert _count(store, "agents") == 1
    assert verify_store(store).ok


def test_a_failed_insert_of_the_rows_leaves_nothing_half_ingested(
    store: TrustStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    ingest_evidence(
        store,
        parsed(eval_record("e1", "alpha", "accuracy", 90, observed_at=NOW - timedelta(days=9))),
        organisation="acme",
        now=NOW,
        source=EvidenceSource.API,
    )
    items = store.item_cache.get(1)
    cached = (store.evidence_cache.get(1), items and (items.seq, items.counts()))
    real_rows = evidence_module._evidence_rows

    def clashing_rows(*args: Any, **kwargs: Any) -> list[tuple[Any, ...]]:
        # The batch's last row reuses the first one's id: the database refuses the insert
        # (unique organisation and evidence id) after the batch was counted into the totals.
        rows = real_rows(*args, **kwargs)
        first, last = rows[0], rows[-1]
        return [*rows[:-1], (*last[:2], first[2], *last[3:])]

    monkeypatch.setattr(evidence_module, "_evidence_rows", clashing_rows)
    with pytest.raises(Exception):  # noqa: B017 - the driver's integrity error
        _ingest_a_second_batch(store)
    monkeypatch.undo()
    assert _count(store, "evidence") == 1
    assert _count(store, "score_history") == 1
    assert _count(store, "score_totals") == 1
    assert _count(store, "agents") == 1
    items = store.item_cache.get(1)
    assert (store.evidence_cache.get(1), items and (items.seq, items.counts())) == cached
    assert verify_store(store).ok
    # The connection went back to the pool in a usable state: the next batch goes in.
    result = ingest_evidence(
        store,
        parsed(eval_record("e2", "alpha", "safety", 50, observed_at=NOW)),
        organisation="acme",
        now=NOW + timedelta(hours=2),
        source=EvidenceSource.API,
    )
    assert result.accepted == 1


def test_rows_keep_source_and_chain_order(store: TrustStore) -> None:
    ingest_evidence(
        store,
        parsed(*(eval_record(f"e{i}", "alpha", "accuracy", 50, observed_at=NOW) for i in range(5))),
        organisation="acme",
        now=NOW,
        source=EvidenceSource.CLI,
    )
    with store.engine.connect() as connection:
        rows = connection.execute(
            select(
                EvidenceRow.evidence_id,
                EvidenceRow.source,
                EvidenceRow.prev_hash,
                EvidenceRow.row_hash,
            ).order_by(EvidenceRow.seq)
        ).all()
        transitions = connection.execute(select(func.count()).select_from(TransitionRow))
        assert transitions.scalar_one() == 1
    assert [r.evidence_id for r in rows] == [f"e{i}" for i in range(5)]
    assert {r.source for r in rows} == {"cli"}
    assert rows[0].prev_hash == "0" * 64
    assert all(rows[i].prev_hash == rows[i - 1].row_hash for i in range(1, 5))


batches = st.lists(
    st.tuples(st.integers(0, 6), st.sampled_from(["a1", "a2"]), st.sampled_from([10, 60])),
    min_size=1,
    max_size=8,
)


@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(first=batches, second=batches)
def test_every_record_is_counted_once_and_reingestion_is_idempotent(
    store: TrustStore, first: list[tuple[int, str, int]], second: list[tuple[int, str, int]]
) -> None:
    # A fresh organisation per example keeps examples independent on one database.
    organisation = f"org-{uuid.uuid4().hex[:12]}"
    for batch in (first, second, first):
        records = parsed(
            *(
                eval_record(f"e{n}", agent, "accuracy", score, observed_at=NOW)
                for n, agent, score in batch
            )
        )
        result = ingest_evidence(
            store, records, organisation=organisation, now=NOW, source=EvidenceSource.API
        )
        assert result.accepted + result.duplicate + len(result.rejected) == len(batch)
    # Sending the first batch again changed nothing.
    assert result.accepted == 0
    assert verify_store(store).ok
