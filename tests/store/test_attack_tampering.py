"""Attack suite, tampering: every sealed column edited by hand in SQL is reported by db verify.

Each edit is one UPDATE or DELETE a person with database access could run. ``db verify`` must
report it as a break naming the chain or row, and exit 1 with its report: never a traceback,
also when the edit leaves rows it cannot read (a deleted agent, a timestamp no parser takes).
"""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from datetime import timedelta

import pytest
from sqlalchemy import Connection, text

from tests.cli.in_process import Cli
from tests.store.conftest import NOW
from tests.store.records import eval_record, fill_two_organisations, parsed
from trustprobe.store import (
    EvidenceSource,
    ReviewClosedError,
    TrustStore,
    decide_review,
    ingest_evidence,
    open_store,
    verify_store,
)
from trustprobe.store.chains import review_seal
from trustprobe.store.errors import NotFoundError

# The review of acme's 'alpha' (its swing to 627 is held), and rows around it.
REVIEW = "(SELECT min(id) FROM reviews)"
HELD = "(SELECT transition_seq FROM reviews WHERE id = (SELECT min(id) FROM reviews))"
E2 = "(SELECT seq FROM evidence WHERE evidence_id = 'e2' AND organisation_id = 1)"
FIRST = "(SELECT min(seq) FROM score_history)"
BETA = "(SELECT id FROM agents WHERE agent_id = 'beta')"
GLOBEX = "(SELECT id FROM organisations WHERE name = 'globex')"
GLOBEX_ALPHA = (
    "(SELECT a.id FROM agents a JOIN organisations o ON o.id = a.organisation_id "
    "WHERE a.agent_id = 'alpha' AND o.name = 'globex')"
)
EARLIER = "'2026-01-01 00:00:00'"  # a valid time no row holds

SEALED_EDITS = {
    "evidence.content": (
        f"UPDATE evidence SET content = replace(content, '60', '99') WHERE seq = {E2}"
    ),
    "evidence.content_sha256": f"UPDATE evidence SET content_sha256 = '0' WHERE seq = {E2}",
    "evidence.evidence_id": f"UPDATE evidence SET evidence_id = 'e9' WHERE seq = {E2}",
    "evidence.dimension": f"UPDATE evidence SET dimension = 'safety' WHERE seq = {E2}",
    "evidence.kind": f"UPDATE evidence SET kind = 'jury' WHERE seq = {E2}",
    "evidence.observed_at": f"UPDATE evidence SET observed_at = {EARLIER} WHERE seq = {E2}",
    "evidence.source": f"UPDATE evidence SET source = 'cli' WHERE seq = {E2}",
    "evidence.received_at": f"UPDATE evidence SET received_at = {EARLIER} WHERE seq = {E2}",
    "evidence.prev_hash": f"UPDATE evidence SET prev_hash = row_hash WHERE seq = {E2}",
    "evidence.row_hash": f"UPDATE evidence SET row_hash = prev_hash WHERE seq = {E2}",
    "evidence.agent_pk": f"UPDATE evidence SET agent_pk = {GLOBEX_ALPHA} WHERE seq = {E2}",
    "evidence.organisation_id": (
        f"UPDATE evidence SET organisation_id = {GLOBEX} WHERE seq = {E2}"
    ),
    "score_history.composite": f"UPDATE score_history SET composite = 999 WHERE seq = {FIRST}",
    "score_history.tier": f"UPDATE score_history SET tier = 'platinum' WHERE seq = {FIRST}",
    "score_history.score": (
        f"UPDATE score_history SET score = replace(score, 'accuracy', 'safety') WHERE seq = {FIRST}"
    ),
    "score_history.computed_at": (
        f"UPDATE score_history SET computed_at = {EARLIER} WHERE seq = {FIRST}"
    ),
    "score_history.trigger": f"UPDATE score_history SET trigger = 'x' WHERE seq = {FIRST}",
    "score_history.was_anomalous": (
        f"UPDATE score_history SET was_anomalous = NOT was_anomalous WHERE seq = {HELD}"
    ),
    "score_history.baseline_seq": f"UPDATE score_history SET baseline_seq = 999 WHERE seq = {HELD}",
    "score_history.status": (f"UPDATE score_history SET status = 'approved' WHERE seq = {HELD}"),
    "score_history.agent_pk": f"UPDATE score_history SET agent_pk = {BETA} WHERE seq = {HELD}",
    "score_history.organisation_id": (
        f"UPDATE score_history SET organisation_id = {GLOBEX} WHERE seq = {HELD}"
    ),
    "reviews.status": f"UPDATE reviews SET status = 'rejected' WHERE id = {REVIEW}",
    "reviews.opened_at": f"UPDATE reviews SET opened_at = {EARLIER} WHERE id = {REVIEW}",
    "reviews.decided_at": (f"UPDATE reviews SET decided_at = opened_at WHERE id = {REVIEW}"),
    "reviews.decided_by": f"UPDATE reviews SET decided_by = 'user:mallory' WHERE id = {REVIEW}",
    "reviews.reason": f"UPDATE reviews SET reason = 'fine' WHERE id = {REVIEW}",
    "reviews.seal": f"UPDATE reviews SET seal = '0' WHERE id = {REVIEW}",
    "reviews.seal_version": f"UPDATE reviews SET seal_version = 1 WHERE id = {REVIEW}",
    "reviews.organisation_id": f"UPDATE reviews SET organisation_id = {GLOBEX} WHERE id = {REVIEW}",
    "reviews.agent_pk": f"UPDATE reviews SET agent_pk = {BETA} WHERE id = {REVIEW}",
    "reviews.transition_seq": f"UPDATE reviews SET transition_seq = {FIRST} WHERE id = {REVIEW}",
}


@pytest.fixture
def filled(store: TrustStore) -> TrustStore:
    """acme: agents alpha (a held swing, review pending) and beta; globex: its own alpha."""
    fill_two_organisations(store, NOW)
    assert verify_store(store).ok
    return store


def _edit(store: TrustStore, sql: str) -> None:
    """Run ``sql`` with foreign keys unenforced, as a careless (or hostile) admin could."""
    if store.engine.dialect.name == "sqlite":
        database = store.engine.url.database
        assert database is not None
        with closing(sqlite3.connect(database)) as raw:  # the sqlite3 shell's defaults
            assert raw.execute(sql).rowcount >= 1, sql
            raw.commit()
        return
    with store.engine.begin() as connection:
        connection.execute(text("SET LOCAL session_replication_role = replica"))
        assert connection.execute(text(sql)).rowcount >= 1, sql


@pytest.mark.parametrize("sql", SEALED_EDITS.values(), ids=SEALED_EDITS.keys())
def test_every_sealed_column_edit_is_reported(filled: TrustStore, sql: str) -> None:
    _edit(filled, sql)
    report = verify_store(filled)
    assert not report.ok, sql
    assert all(b.chain and b.problem for b in report.breaks)


def test_a_moved_review_cannot_be_decided_by_the_other_organisation(filled: TrustStore) -> None:
    _edit(filled, SEALED_EDITS["reviews.organisation_id"])
    with filled.engine.connect() as connection:
        review_id = connection.execute(text(f"SELECT {REVIEW}")).scalar_one()
    with pytest.raises(NotFoundError):
        decide_review(
            filled, review_id, organisation="globex", approve=True, reviewer="user:mallory",
            reason="looks fine", now=NOW + timedelta(hours=1),
        )  # fmt: skip
    (broken,) = verify_store(filled).breaks
    assert broken.chain.startswith(f"review {review_id} of agent 'alpha' (globex)")
    assert "disagrees with its transition" in broken.problem


def test_a_review_sealed_before_the_holder_was_sealed_still_verifies(filled: TrustStore) -> None:
    """A store written before schema 0002 holds version-1 seals: they keep verifying."""
    with filled.engine.begin() as connection:
        row = connection.execute(
            text(
                "SELECT r.id, r.status, r.opened_at, h.row_hash FROM reviews r "
                "JOIN score_history h ON h.seq = r.transition_seq"
            )
        ).one()
        opened_at = verify_time(connection, "reviews", "opened_at", row.id)
        seal = review_seal(
            transition_hash=row.row_hash, status=row.status, opened_at=opened_at,
            decided_at=None, decided_by=None, reason=None, holder=None,
        )  # fmt: skip
        connection.execute(
            text("UPDATE reviews SET seal = :seal, seal_version = 1 WHERE id = :id"),
            {"seal": seal, "id": row.id},
        )
    assert verify_store(filled).ok
    # Deciding it reseals it at the current version.
    decide_review(
        filled, row.id, organisation="acme", approve=True, reviewer="user:ana",
        reason="rerun confirms", now=NOW + timedelta(hours=1),
    )  # fmt: skip
    assert verify_store(filled).ok
    with filled.engine.connect() as connection:
        assert connection.execute(text("SELECT seal_version FROM reviews")).scalar_one() == 2
    with pytest.raises(ReviewClosedError):
        decide_review(
            filled, row.id, organisation="acme", approve=False, reviewer="user:ana",
            reason="again", now=NOW + timedelta(hours=2),
        )  # fmt: skip


def verify_time(connection: Connection, table: str, column: str, row_id: int) -> object:
    """A timestamp as the store's own column type reads it back."""
    from trustprobe.store.schema import Base

    model = Base.metadata.tables[table]
    return connection.execute(
        model.select().with_only_columns(model.c[column]).where(model.c.id == row_id)
    ).scalar_one()


UNREADABLE = {
    "deleted-agent": ("DELETE FROM agents WHERE agent_id = 'beta'", "agent row"),
    "deleted-organisation": ("DELETE FROM organisations WHERE name = 'globex'", "row missing"),
    "year-20000-received": (
        f"UPDATE evidence SET received_at = '20000-01-01 00:00:00+00' WHERE seq = {E2}",
        "not a timestamp",
    ),
    "year-20000-computed": (
        f"UPDATE score_history SET computed_at = '20000-01-01 00:00:00+00' WHERE seq = {FIRST}",
        "not a timestamp",
    ),
    "year-20000-opened": (
        f"UPDATE reviews SET opened_at = '20000-01-01 00:00:00+00' WHERE id = {REVIEW}",
        "not a timestamp",
    ),
}


@pytest.mark.parametrize(("sql", "named"), UNREADABLE.values(), ids=UNREADABLE.keys())
def test_unreadable_rows_are_reported_not_raised(filled: TrustStore, sql: str, named: str) -> None:
    _edit(filled, sql)
    report = verify_store(filled)
    assert not report.ok
    assert any(named in b.problem or named in b.chain for b in report.breaks), report.breaks


def test_garbage_text_timestamps_are_refused_or_reported(filled: TrustStore) -> None:
    garbage = f"UPDATE evidence SET observed_at = 'yesterday' WHERE seq = {E2}"
    _edit(filled, garbage)
    if filled.engine.dialect.name != "sqlite":
        # PostgreSQL reads 'yesterday' as a real time (midnight yesterday): a changed seal.
        (broken,) = verify_store(filled).breaks
        assert broken.seq > 0
        return
    (broken,) = verify_store(filled).breaks
    assert broken.seq > 0 and "'observed_at' holds 'yesterday'" in broken.problem


def test_db_verify_exits_1_with_its_report_on_a_deleted_agent(cli: Cli, filled: TrustStore) -> None:
    _edit(filled, UNREADABLE["deleted-agent"][0])
    url = filled.engine.url.render_as_string(hide_password=False)
    result = cli("db", "verify", "--json", "--database-url", url)
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    report = json.loads(result.stdout)
    assert any("agent row" in b["problem"] for b in report["breaks"])


def test_records_stored_before_the_time_range_existed_stay_readable(store: TrustStore) -> None:
    """A store written before observed_at had a lower bound may hold year 999: it still works."""
    record = eval_record("old-1", "veteran", "accuracy", 80, observed_at=NOW)
    ingest_evidence(store, parsed(record), organisation="acme", now=NOW, source=EvidenceSource.API)
    _edit(
        store,
        "UPDATE evidence SET content = replace(content, '\"2026-03-02T', '\"0999-03-02T') "
        "WHERE evidence_id = 'old-1'",
    )
    cold = open_store(store.engine.url.render_as_string(hide_password=False))  # no cache
    try:
        result = ingest_evidence(
            cold,
            parsed(eval_record("old-2", "veteran", "accuracy", 70, observed_at=NOW)),
            organisation="acme",
            now=NOW + timedelta(minutes=1),
            source=EvidenceSource.API,
        )
    finally:
        cold.close()
    assert result.accepted == 1 and len(result.transitions) == 1
