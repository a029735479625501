"""The write worked out before the write lock: used only while it holds, equal to one made under it.

Each test ingests the same batches into two stores of the same backend, one through a plan made
before the lock (with other writes let in between), the other with everything worked out under
the lock, and compares every stored row: evidence, totals, transitions and reviews.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from tests.store.conftest import NOW
from tests.store.databases import BACKENDS, filled_twin_stores, history_rows
from tests.store.records import eval_record, fill_two_organisations, parsed
from trustprobe.store import (
    EvidenceSource,
    IngestResult,
    TrustStore,
    decide_review,
    ingest_evidence,
    verify_store,
)
from trustprobe.store import evidence as evidence_module
from trustprobe.store.database import write_transaction
from trustprobe.store.evidence import (
    IngestPlan,
    ingest_in_transaction,
    plan_ingestion,
    prepare_batch,
)
from trustprobe.store.evidence_cache import CacheUpdates

LATER = NOW + timedelta(hours=1)


def two_stores(
    backend: str, directory: Path
) -> AbstractContextManager[tuple[TrustStore, TrustStore]]:
    """Two new stores of ``backend``, each filled by :func:`fill_two_organisations`."""
    return filled_twin_stores(backend, directory, lambda store: fill_two_organisations(store, NOW))


def _batch(*items: tuple[str, str, float]) -> list[Any]:
    return parsed(*(eval_record(i, a, "accuracy", s, observed_at=NOW) for i, a, s in items))


def _plan(store: TrustStore, records: list[Any], now: datetime) -> IngestPlan:
    batch = prepare_batch(store, records, now=now)
    plan = plan_ingestion(store, batch, organisation="acme", now=now, source=EvidenceSource.API)
    assert plan is not None
    return plan


def _write(store: TrustStore, records: list[Any], plan: IngestPlan, now: datetime) -> IngestResult:
    """Ingest ``records`` into acme with ``plan``, as ``ingest_evidence`` does."""
    cached = CacheUpdates()
    with write_transaction(store.engine) as connection:
        result = ingest_in_transaction(
            connection,
            store,
            prepare_batch(store, records, now=now),
            organisation="acme",
            now=now,
            source=EvidenceSource.API,
            cache_updates=cached,
            plan=plan,
        )
    cached.apply(store.evidence_cache, store.item_cache)
    return result


def _locked(store: TrustStore, records: list[Any], now: datetime) -> IngestResult:
    """Ingest ``records`` into acme with everything worked out under the lock."""
    return ingest_evidence(store, records, organisation="acme", now=now, source=EvidenceSource.API)


def _rows(store: TrustStore) -> tuple[list[tuple[Any, ...]], ...]:
    with store.engine.connect() as connection:
        evidence = [
            tuple(row) for row in connection.execute(text("SELECT * FROM evidence ORDER BY seq"))
        ]
        totals = [
            tuple(row)
            for row in connection.execute(
                text("SELECT * FROM score_totals ORDER BY agent_pk, dimension")
            )
        ]
    transitions, reviews = history_rows(store)
    return evidence, totals, transitions, reviews


def _plans_made_under_the_lock(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the plans :func:`ingest_in_transaction` makes again under the lock from now on."""
    made: list[int] = []
    real = evidence_module._plan

    def counted(*args: Any, **kwargs: Any) -> IngestPlan:
        made.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(evidence_module, "_plan", counted)
    return made


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_plan_that_holds_is_written_as_the_lock_would_have_made_it(
    backend: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    records = _batch(("e6", "alpha", 70), ("e7", "beta", 65), ("e8", "alpha", 72))
    with two_stores(backend, tmp_path) as (planned, locked):
        plan = _plan(planned, records, LATER)
        # Another organisation's write between the plan and the lock leaves acme's chains alone.
        for store in (planned, locked):
            ingest_evidence(
                store, _batch(("g2", "alpha", 40)), organisation="globex", now=LATER,
                source=EvidenceSource.API,
            )  # fmt: skip
        made = _plans_made_under_the_lock(monkeypatch)
        result = _write(planned, records, plan, LATER)
        assert made == []  # the plan was written as it was
        monkeypatch.undo()
        assert result == _locked(locked, records, LATER)
        assert result.accepted == 3
        assert _rows(planned) == _rows(locked)
        assert verify_store(planned).ok


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_plan_overtaken_by_a_write_of_its_organisation_is_made_again(
    backend: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _batch(("e6", "alpha", 70), ("e7", "beta", 65))
    second = _batch(("e7", "beta", 65), ("e8", "beta", 20), ("e9", "alpha", 71))
    with two_stores(backend, tmp_path) as (planned, locked):
        plan = _plan(planned, second, LATER)
        assert len(plan.accepted) == 3  # e7 is new when the plan is made
        for store in (planned, locked):
            _locked(store, first, LATER)
        made = _plans_made_under_the_lock(monkeypatch)
        result = _write(planned, second, plan, LATER)
        assert made == [1]
        monkeypatch.undo()
        assert result == _locked(locked, second, LATER)
        assert (result.accepted, result.duplicate) == (2, 1)  # e7 came in meanwhile
        assert _rows(planned) == _rows(locked)
        assert verify_store(planned).ok


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_plan_overtaken_by_a_review_decision_is_made_again(
    backend: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    records = _batch(("e6", "alpha", 12))
    with two_stores(backend, tmp_path) as (planned, locked):
        plan = _plan(planned, records, LATER)
        for store in (planned, locked):
            with store.engine.connect() as connection:
                review = connection.execute(text("SELECT id FROM reviews")).scalar_one()
            decide_review(
                store, review, organisation="acme", approve=True, reviewer="user:ana",
                reason="confirmed", now=NOW + timedelta(minutes=30),
            )  # fmt: skip
        made = _plans_made_under_the_lock(monkeypatch)
        result = _write(planned, records, plan, LATER)
        assert made == [1]  # same evidence chain, but alpha's baseline is now the approved one
        monkeypatch.undo()
        assert result == _locked(locked, records, LATER)
        assert _rows(planned) == _rows(locked)
        assert verify_store(planned).ok


@pytest.mark.parametrize("backend", BACKENDS)
def test_no_plan_for_an_agent_or_organisation_not_stored_yet(backend: str, tmp_path: Path) -> None:
    with two_stores(backend, tmp_path) as (store, _):
        for organisation, agent in (("acme", "gamma"), ("initech", "alpha")):
            batch = prepare_batch(store, _batch(("x1", agent, 50)), now=LATER)
            assert (
                plan_ingestion(
                    store, batch, organisation=organisation, now=LATER, source=EvidenceSource.API
                )
                is None
            )
