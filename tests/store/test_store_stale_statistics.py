"""PostgreSQL's plans for the ingestion's reads when the table statistics are out of date.

The statistics are taken (``ANALYZE``) while only one organisation has rows; another then writes
without analysing again, as a new or fast-growing organisation does between two autovacuum
analyses. The planner believes that organisation has no rows: its stored-digest lookup must
still probe the ``(organisation_id, evidence_id)`` unique index for each id, not read all of its
rows through ``(organisation_id, seq)`` once per id.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import text

from tests.store.conftest import NOW
from tests.store.databases import postgres_schema
from tests.store.records import eval_record, parsed
from trustprobe.store import EvidenceSource, TrustStore, ingest_evidence, open_store
from trustprobe.store import evidence as evidence_module

UNIQUE_INDEX = "uq_evidence_organisation_id_evidence_id"
ROWS = 2_000


@pytest.fixture
def stale_store() -> Iterator[TrustStore]:
    """acme's rows analysed, then globex's written: the statistics know only acme."""
    with postgres_schema() as url:
        store = open_store(url, upgrade=True)
        try:
            with store.engine.begin() as connection:
                # No analyse from autovacuum in between (this server may run it).
                connection.execute(text("ALTER TABLE evidence SET (autovacuum_enabled = false)"))
            _ingest(store, "acme", minute=0)
            with store.engine.begin() as connection:
                connection.execute(text("ANALYZE evidence"))
            _ingest(store, "globex", minute=1)
            yield store
        finally:
            store.close()


def _ingest(store: TrustStore, organisation: str, *, minute: int) -> None:
    records = parsed(
        *(
            eval_record(f"e{i}", f"agent-{i % 20}", "accuracy", i % 100, observed_at=NOW)
            for i in range(ROWS)
        )
    )
    ingest_evidence(
        store,
        records,
        organisation=organisation,
        now=NOW + timedelta(minutes=minute),
        source=EvidenceSource.API,
    )


def _evidence_scans(plan: dict[str, Any]) -> list[dict[str, Any]]:
    """Every node of ``plan`` that reads the evidence table."""
    found = [plan] if plan.get("Relation Name") == "evidence" else []
    for child in plan.get("Plans", []):
        found.extend(_evidence_scans(child))
    return found


@pytest.mark.parametrize("organisation", ["acme", "globex"])
def test_the_stored_digest_lookup_probes_the_unique_index_whatever_the_statistics(
    stale_store: TrustStore, organisation: str
) -> None:
    # Half of the ids stored, half new, as a batch that re-sends part of its records.
    ids = sorted({f"e{i}" for i in range(0, ROWS, 2)} | {f"new{i}" for i in range(ROWS // 2)})
    with stale_store.engine.begin() as connection:
        organisation_id = connection.execute(
            text("SELECT id FROM organisations WHERE name = :name"), {"name": organisation}
        ).scalar_one()
        estimate = connection.execute(
            text("EXPLAIN (FORMAT JSON) SELECT * FROM evidence WHERE organisation_id = :id"),
            {"id": organisation_id},
        ).scalar_one()[0]["Plan"]["Plan Rows"]
        plan = connection.exec_driver_sql(
            "EXPLAIN (FORMAT JSON) " + evidence_module._PG_DIGESTS, (ids, organisation_id)
        ).scalar_one()[0]["Plan"]
        stored = evidence_module._stored_digests(connection, organisation_id, ids)
    # The statistics are the stale ones this test is about: globex is believed to have no rows.
    assert (estimate > ROWS / 2) == (organisation == "acme")
    scans = _evidence_scans(plan)
    assert scans, plan
    for scan in scans:
        assert scan["Node Type"] == "Index Scan", plan
        assert scan["Index Name"] == UNIQUE_INDEX, plan
        assert {"Filter", "Rows Removed by Filter"}.isdisjoint(scan), plan
    assert set(stored) == {f"e{i}" for i in range(0, ROWS, 2)}
