from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import text

from tests.store.conftest import NOW
from tests.store.records import fill_two_organisations
from trustprobe.store import (
    TrustStore,
    decide_review,
    verify_store,
)


@pytest.fixture
def filled(store: TrustStore) -> TrustStore:
    """Two organisations, three agents, a pending review."""
    fill_two_organisations(store, NOW)
    return store


def _execute(store: TrustStore, sql: str) -> None:
    with store.engine.begin() as connection:
        assert connection.execute(text(sql)).rowcount == 1


def test_an_untouched_store_verifies(filled: TrustStore) -> None:
    report = verify_store(filled)
    assert report.ok
    assert (report.evidence_rows, report.transitions, report.reviews) == (6, 5, 1)
    assert {head.chain: head.length for head in report.heads} == {
        "evidence of organisation 'acme'": 5,
        "evidence of organisation 'globex'": 1,
        "history of agent 'alpha' (acme)": 2,
        "history of agent 'beta' (acme)": 2,
        "history of agent 'alpha' (globex)": 1,
    }


def test_editing_evidence_content_is_detected(filled: TrustStore) -> None:
    with filled.engine.connect() as connection:
        seq = connection.execute(
            text("SELECT seq FROM evidence WHERE evidence_id = 'e2'")
        ).scalar_one()
        content = connection.execute(
            text("SELECT content FROM evidence WHERE seq = :seq"), {"seq": seq}
        ).scalar_one()
    forged = content.replace('"score":60', '"score":99')
    assert forged != content
    # The forger also fixes the content digest; only the chain gives them away.
    import hashlib

    digest = hashlib.sha256(forged.encode()).hexdigest()
    with filled.engine.begin() as connection:
        connection.execute(
            text("UPDATE evidence SET content = :c, content_sha256 = :d WHERE seq = :seq"),
            {"c": forged, "d": digest, "seq": seq},
        )
    report = verify_store(filled)
    assert not report.ok
    (broken,) = report.breaks
    assert broken.chain == "evidence of organisation 'acme'"
    assert broken.seq == seq
    assert "does not match the hash of its content" in broken.problem


def test_deleting_an_evidence_row_breaks_the_next_link(filled: TrustStore) -> None:
    with filled.engine.connect() as connection:
        seqs = (
            connection.execute(
                text("SELECT seq FROM evidence WHERE organisation_id = 1 ORDER BY seq")
            )
            .scalars()
            .all()
        )
    _execute(filled, f"DELETE FROM evidence WHERE seq = {seqs[1]}")
    (broken,) = verify_store(filled).breaks
    assert broken.seq == seqs[2]
    assert "previous hash" in broken.problem


def test_editing_a_denormalised_column_is_detected(filled: TrustStore) -> None:
    _execute(filled, "UPDATE evidence SET dimension = 'safety' WHERE evidence_id = 'e3'")
    (broken,) = verify_store(filled).breaks
    assert "'dimension'" in broken.problem


def test_editing_a_transition_is_detected(filled: TrustStore) -> None:
    _execute(
        filled,
        "UPDATE score_history SET trigger = 'evidence:1 via cli' WHERE seq = "
        "(SELECT min(seq) FROM score_history)",
    )
    (broken,) = verify_store(filled).breaks
    assert broken.chain.startswith("history of agent")
    assert "edited" in broken.problem


def test_flipping_a_review_decision_is_detected(filled: TrustStore) -> None:
    _execute(filled, "UPDATE score_history SET status = 'approved' WHERE status = 'pending_review'")
    _execute(filled, "UPDATE reviews SET status = 'approved', decided_by = 'user:mallory'")
    (broken,) = verify_store(filled).breaks
    assert broken.chain.startswith("review ")
    assert "seal" in broken.problem


def test_a_status_that_disagrees_with_its_review_is_detected(filled: TrustStore) -> None:
    _execute(filled, "UPDATE score_history SET status = 'approved' WHERE status = 'pending_review'")
    problems = [b.problem for b in verify_store(filled).breaks]
    assert any("disagrees with review status" in p for p in problems)


def test_decisions_keep_the_store_verifiable(filled: TrustStore) -> None:
    with filled.engine.connect() as connection:
        review_id = connection.execute(text("SELECT id FROM reviews")).scalar_one()
    decide_review(
        filled,
        review_id,
        organisation="acme",
        approve=True,
        reviewer="user:ana",
        reason="confirmed by rerun",
        now=NOW + timedelta(hours=1),
    )
    assert verify_store(filled).ok
    _execute(filled, "UPDATE reviews SET reason = 'rubber stamp'")
    (broken,) = verify_store(filled).breaks
    assert "seal" in broken.problem


def test_deleting_a_review_is_detected(filled: TrustStore) -> None:
    _execute(filled, "DELETE FROM reviews")
    (broken,) = verify_store(filled).breaks
    assert broken.problem == "anomalous transition without its review"
