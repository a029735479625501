from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import func, select, update

from tests.store.conftest import NOW
from tests.store.records import eval_record, parsed
from trustprobe.errors import InputError
from trustprobe.store import (
    EvidenceSource,
    NotFoundError,
    ReviewClosedError,
    ReviewStatus,
    TransitionStatus,
    TrustStore,
    canonical_score,
    decide_review,
    ingest_evidence,
    is_anomalous,
    list_reviews,
    score_history,
    verify_store,
)
from trustprobe.store.history import CANONICAL_STATUSES, ChainBases, chain_bases
from trustprobe.store.schema import AgentRow, TransitionRow


@pytest.mark.parametrize(
    ("previous", "proposed", "expected"),
    [
        (400, 601, True),  # |601 - 400| = 201 > 200
        (400, 600, False),  # exactly 200 is not more than 200
        (900, 699, True),  # downward swings count too: 201
        (900, 700, False),
        (None, 900, False),  # no measurable swing from "no coverage"
        (900, None, False),
    ],
    ids=["up-201", "up-200", "down-201", "down-200", "from-none", "to-none"],
)
def test_swing_threshold(previous: int | None, proposed: int | None, expected: bool) -> None:
    assert is_anomalous(previous, proposed, 200) is expected


def _send(store: TrustStore, evidence_id: str, score: float, minutes: int) -> list[int]:
    """Add one accuracy item for agent 'alpha'; accuracy alone means composite = 10 × mean."""
    now = NOW + timedelta(minutes=minutes)
    result = ingest_evidence(
        store,
        parsed(eval_record(evidence_id, "alpha", "accuracy", score, observed_at=now)),
        organisation="acme",
        now=now,
        source=EvidenceSource.API,
    )
    assert result.accepted == 1
    return result.pending_reviews


def _composite(store: TrustStore) -> int | None:
    return canonical_score(store, organisation="acme", agent_id="alpha").score.composite


def test_anomaly_flow_approve(store: TrustStore) -> None:
    assert _send(store, "e1", 90, 0) == []  # first score, committed directly: 900
    assert _composite(store) == 900
    (review_id,) = _send(store, "e2", 40, 1)  # mean(90, 40) = 65 → 650; swing 250 > 200
    current = canonical_score(store, organisation="acme", agent_id="alpha")
    assert current.score.composite == 900  # the canonical score stays until review
    assert current.pending_review is not None
    assert (current.pending_review.id, current.pending_review.composite) == (review_id, 650)
    assert current.pending_review.canonical_composite == 900

    decided = decide_review(
        store,
        review_id,
        organisation="acme",
        approve=True,
        reviewer="user:ana",
        reason="new eval suite is harder",
        now=NOW + timedelta(minutes=2),
    )
    assert (decided.status, decided.decided_by, decided.reason) == (
        ReviewStatus.APPROVED,
        "user:ana",
        "new eval suite is harder",
    )
    assert decided.decided_at == NOW + timedelta(minutes=2)
    current = canonical_score(store, organisation="acme", agent_id="alpha")
    assert (current.score.composite, current.pending_review) == (650, None)
    # mean(90, 40, 80) = 70 → 700; swing from 650 is 50: committed directly
    assert _send(store, "e3", 80, 3) == []
    assert _composite(store) == 700
    statuses = [
        (t.composite, t.status, t.was_anomalous)
        for t in score_history(store, organisation="acme", agent_id="alpha").transitions
    ]
    assert statuses == [
        (700, TransitionStatus.COMMITTED, False),
        (650, TransitionStatus.APPROVED, True),
        (900, TransitionStatus.COMMITTED, False),
    ]
    assert verify_store(store).ok


def test_anomaly_flow_reject(store: TrustStore) -> None:
    _send(store, "e1", 90, 0)
    (review_id,) = _send(store, "e2", 40, 1)
    decide_review(
        store,
        review_id,
        organisation="acme",
        approve=False,
        reviewer="key:abc",
        reason="eval run was misconfigured",
        now=NOW + timedelta(minutes=2),
    )
    current = canonical_score(store, organisation="acme", agent_id="alpha")
    assert (current.score.composite, current.pending_review) == (900, None)
    history = score_history(store, organisation="acme", agent_id="alpha").transitions
    assert [(t.composite, t.status) for t in history] == [
        (650, TransitionStatus.REJECTED),
        (900, TransitionStatus.COMMITTED),
    ]
    assert [r.id for r in list_reviews(store, organisation="acme")] == []
    assert [r.id for r in list_reviews(store, organisation="acme", status=None)] == [review_id]
    with pytest.raises(ReviewClosedError):
        decide_review(
            store,
            review_id,
            organisation="acme",
            approve=True,
            reviewer="key:abc",
            reason="changed my mind",
            now=NOW + timedelta(minutes=3),
        )
    assert verify_store(store).ok


def test_new_evidence_supersedes_a_pending_review(store: TrustStore) -> None:
    _send(store, "e1", 90, 0)
    (first,) = _send(store, "e2", 40, 1)  # 650, pending
    # mean(90, 40, 70) = 66.67 → 667: still 233 from the canonical 900, so a new review
    (second,) = _send(store, "e3", 70, 2)
    reviews = {r.id: r for r in list_reviews(store, organisation="acme", status=None)}
    assert reviews[first].status == ReviewStatus.SUPERSEDED
    assert reviews[first].decided_by == "system"
    assert reviews[second].status == ReviewStatus.PENDING
    assert reviews[second].composite == 667
    assert _composite(store) == 900
    # mean(90, 40, 70, 100, 100) = 80 → 800: within 200 of 900, committed; supersedes `second`
    ingest_evidence(
        store,
        parsed(
            eval_record("e4", "alpha", "accuracy", 100, observed_at=NOW),
            eval_record("e5", "alpha", "accuracy", 100, observed_at=NOW),
        ),
        organisation="acme",
        now=NOW + timedelta(minutes=3),
        source=EvidenceSource.API,
    )
    assert _composite(store) == 800
    assert list_reviews(store, organisation="acme") == []
    with pytest.raises(ReviewClosedError, match="superseded"):
        decide_review(
            store,
            second,
            organisation="acme",
            approve=True,
            reviewer="user:ana",
            reason="late",
            now=NOW + timedelta(minutes=4),
        )
    assert verify_store(store).ok


def test_exactly_200_points_is_committed_directly(store: TrustStore) -> None:
    _send(store, "e1", 90, 0)
    assert _send(store, "e2", 50, 1) == []  # mean 70 → 700: swing of exactly 200
    assert _composite(store) == 700


def test_reviews_of_other_organisations_are_not_found(store: TrustStore) -> None:
    _send(store, "e1", 90, 0)
    (review_id,) = _send(store, "e2", 40, 1)
    for organisation in ("globex", "never-seen"):
        with pytest.raises(NotFoundError):
            decide_review(
                store,
                review_id,
                organisation=organisation,
                approve=True,
                reviewer="user:eve",
                reason="not mine",
                now=NOW,
            )
        assert list_reviews(store, organisation=organisation) == []
        with pytest.raises(NotFoundError):
            canonical_score(store, organisation=organisation, agent_id="alpha")


def test_history_pages_newest_first(store: TrustStore) -> None:
    for i, score in enumerate([50, 52, 54, 56, 58]):
        _send(store, f"e{i}", score, i)
    first = score_history(store, organisation="acme", agent_id="alpha", limit=2)
    assert len(first.transitions) == 2
    seqs = [t.seq for t in first.transitions]
    assert seqs == sorted(seqs, reverse=True)
    assert first.next_before == seqs[-1]
    second = score_history(
        store, organisation="acme", agent_id="alpha", limit=2, before=first.next_before
    )
    third = score_history(
        store, organisation="acme", agent_id="alpha", limit=2, before=second.next_before
    )
    assert third.next_before is None
    everything = first.transitions + second.transitions + third.transitions
    # composites: 500, mean(50, 52) = 51 → 510, 520, 530, 540; newest first
    assert [t.composite for t in everything] == [540, 530, 520, 510, 500]
    assert everything[0].score.weights_source == "base"
    assert everything[0].computed_at == NOW + timedelta(minutes=4)


@pytest.mark.parametrize("reason", ["", "   ", "x" * 2001], ids=["empty", "blank", "too-long"])
def test_a_decision_needs_a_reason(store: TrustStore, reason: str) -> None:
    _send(store, "e1", 90, 0)
    (review_id,) = _send(store, "e2", 40, 1)
    with pytest.raises(InputError) as caught:
        decide_review(
            store,
            review_id,
            organisation="acme",
            approve=True,
            reviewer="user:ana",
            reason=reason,
            now=NOW,
        )
    assert caught.value.field == "reason"
    assert [r.id for r in list_reviews(store, organisation="acme")] == [review_id]


def test_one_batch_supersedes_the_pending_reviews_of_several_agents(store: TrustStore) -> None:
    agents = ("alpha", "beta", "gamma")

    def send(step: int, score: float) -> list[int]:
        now = NOW + timedelta(minutes=step)
        result = ingest_evidence(
            store,
            parsed(
                *(
                    eval_record(f"{agent}-{step}", agent, "accuracy", score, observed_at=now)
                    for agent in agents
                )
            ),
            organisation="acme",
            now=now,
            source=EvidenceSource.API,
        )
        assert result.accepted == len(agents)
        return result.pending_reviews

    assert send(0, 90) == []  # 900 each, committed
    held = send(1, 20)  # mean(90, 20) = 55 → 550: 350 from 900, a review per agent
    assert len(held) == len(agents)
    # mean(90, 20, 100) = 70 → 700: within 200 of 900, committed; supersedes all three at once
    assert send(2, 100) == []
    reviews = {r.id: r for r in list_reviews(store, organisation="acme", status=None)}
    assert {reviews[review].status for review in held} == {ReviewStatus.SUPERSEDED}
    assert {reviews[review].decided_by for review in held} == {"system"}
    for agent in agents:
        newest, held_one, first = score_history(
            store, organisation="acme", agent_id=agent
        ).transitions
        assert (newest.status, newest.composite) == (TransitionStatus.COMMITTED, 700)
        assert (held_one.status, held_one.composite) == (TransitionStatus.SUPERSEDED, 550)
        assert first.status == TransitionStatus.COMMITTED
    assert list_reviews(store, organisation="acme") == []
    assert verify_store(store).ok  # every resealed review checks out


def _bases_match_a_search_of_every_transition(store: TrustStore) -> ChainBases:
    """``chain_bases`` of 'alpha', checked against the latest canonical among all its rows."""
    with store.engine.connect() as connection:
        (agent_pk,) = connection.execute(select(AgentRow.id)).scalars()
        bases = chain_bases(connection, [agent_pk])
        searched = connection.execute(
            select(func.max(TransitionRow.seq)).where(
                TransitionRow.agent_pk == agent_pk, TransitionRow.status.in_(CANONICAL_STATUSES)
            )
        ).scalar_one()
    assert bases.canonical_seq == {agent_pk: searched}
    return bases


def test_the_canonical_base_is_found_behind_held_rejected_and_approved_transitions(
    store: TrustStore,
) -> None:
    def decide(review_id: int, approve: bool) -> None:
        decide_review(
            store, review_id, organisation="acme", approve=approve, reviewer="user:ana",
            reason="checked", now=NOW + timedelta(minutes=30),
        )  # fmt: skip

    _send(store, "e1", 90, 0)  # 900, committed
    (held,) = _send(store, "e2", 40, 1)  # 650, held: the latest is pending
    _bases_match_a_search_of_every_transition(store)
    decide(held, approve=False)  # the latest is rejected
    _bases_match_a_search_of_every_transition(store)
    _send(store, "e3", 45, 2)  # mean(90, 40, 45) → 583: held again, baseline 900
    (held,) = _send(store, "e4", 50, 3)  # 563, held; supersedes the review of 583
    _bases_match_a_search_of_every_transition(store)
    decide(held, approve=True)  # the latest is approved: canonical itself
    _bases_match_a_search_of_every_transition(store)
    _send(store, "e5", 60, 4)  # 570: within 200 of 563, committed on the approved one
    history = score_history(store, organisation="acme", agent_id="alpha").transitions
    assert [(t.composite, t.status, t.baseline_seq) for t in history] == [
        (570, TransitionStatus.COMMITTED, 4),
        (563, TransitionStatus.APPROVED, 1),
        (583, TransitionStatus.SUPERSEDED, 1),
        (650, TransitionStatus.REJECTED, 1),
        (900, TransitionStatus.COMMITTED, None),
    ]
    assert verify_store(store).ok


def test_a_baseline_that_is_not_canonical_falls_back_to_a_search(store: TrustStore) -> None:
    _send(store, "e1", 90, 0)  # seq 1: 900, committed
    _send(store, "e2", 85, 1)  # seq 2: 875, committed
    _send(store, "e3", 10, 2)  # seq 3: 617, held against seq 2
    with store.engine.begin() as connection:  # not a state the store writes: a hand edit
        connection.execute(
            update(TransitionRow).where(TransitionRow.seq == 2).values(status="rejected")
        )
    bases = _bases_match_a_search_of_every_transition(store)
    assert list(bases.canonical_seq.values()) == [1]


def test_transitions_written_by_the_driver_read_back_as_sqlalchemy_wrote_them(
    store: TrustStore,
) -> None:
    moment = NOW + timedelta(microseconds=45)
    records = parsed(
        eval_record("e1", "alpha", "accuracy", 90, observed_at=NOW),
        eval_record("e2", "beta", "accuracy", 50, observed_at=NOW),
    )
    result = ingest_evidence(
        store, records, organisation="acme", now=moment, source=EvidenceSource.API
    )
    with store.engine.connect() as connection:
        rows = connection.execute(
            select(
                TransitionRow.seq, TransitionRow.computed_at, TransitionRow.was_anomalous
            ).order_by(TransitionRow.seq)
        ).all()
        if store.engine.dialect.name == "sqlite":
            # The stored text, as SQLAlchemy's SQLite DATETIME spells it (microseconds kept).
            stored = connection.exec_driver_sql("SELECT computed_at FROM score_history").scalars()
            assert set(stored) == {"2026-03-02 12:00:00.000045"}
    assert [row.seq for row in rows] == result.transitions  # each agent's seq, in order
    assert {(row.computed_at, row.was_anomalous) for row in rows} == {(moment, False)}
    assert verify_store(store).ok
