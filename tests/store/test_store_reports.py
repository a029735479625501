from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import text

from tests.sample_reports import build_case, report_of
from tests.store.conftest import NOW
from trustprobe.errors import InputError
from trustprobe.reports import Report
from trustprobe.store import TrustStore, record_report, score_history, submit_report


def _report(outcomes: dict[str, list[bool]], created_at: datetime | None = None) -> Report:
    """A report of these outcomes; without ``created_at``, one whose time has no zone."""
    cases = [
        build_case(f"{category}-{i}", category=category, passed=passed)
        for category, results in outcomes.items()
        for i, passed in enumerate(results)
    ]
    return report_of(cases, created_at=created_at or datetime(2026, 3, 1, 9, 0))


def test_record_report_returns_the_canonical_score(store: TrustStore) -> None:
    # harmful_content → safety: 3 of 4 passed = 75; prompt_injection → security: 2 of 2 = 100
    report = _report(
        {"harmful_content": [True, True, True, False], "prompt_injection": [True, True]},
        created_at=datetime(2026, 3, 2, 11, 0, tzinfo=UTC),
    )
    score = record_report(store, report, agent_id="demo", now=NOW)
    assert score is not None
    assert score.agent_id == "demo"
    assert score.score.dimensions["safety"].score == pytest.approx(75)
    assert score.score.dimensions["security"].score == pytest.approx(100)
    assert score.score.composite is not None
    assert score.pending_review is None
    # Recording the same report again stores nothing new and changes nothing.
    again = record_report(store, report, agent_id="demo", now=NOW + timedelta(hours=1))
    assert again is not None
    assert again.transition_seq == score.transition_seq
    assert len(score_history(store, organisation="default", agent_id="demo").transitions) == 1


def test_a_report_without_a_creation_time_is_still_idempotent(store: TrustStore) -> None:
    report = _report({"harmful_content": [True, False]})
    first = submit_report(store, report, agent_id="demo", organisation="acme", now=NOW)
    assert first.accepted > 0
    # Received again later: observed_at is taken from the first receipt, so no conflict.
    again = submit_report(
        store, report, agent_id="demo", organisation="acme", now=NOW + timedelta(days=1)
    )
    assert (again.accepted, again.rejected, again.duplicate_report) == (0, [], True)
    assert again.duplicate == first.accepted
    with store.engine.connect() as connection:
        runs = connection.execute(text("SELECT observed_at, evidence_count FROM probe_runs")).all()
    assert len(runs) == 1


def test_an_unconvertible_report_stores_nothing(store: TrustStore) -> None:
    with pytest.raises(InputError) as caught:
        submit_report(
            store, _report({"astrology": [True]}), agent_id="demo", organisation="acme", now=NOW
        )
    assert caught.value.field == "cases[0].category"
    with store.engine.connect() as connection:
        for table in ("probe_runs", "evidence", "agents"):
            assert connection.execute(text(f"SELECT count(*) FROM {table}")).scalar_one() == 0
