from __future__ import annotations

from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect, text

from tests.store.conftest import NOW
from tests.store.databases import run_alembic
from tests.store.records import eval_record, parsed
from trustprobe.store import (
    EvidenceSource,
    SchemaOutOfDateError,
    StoreError,
    create_store_engine,
    current_revision,
    head_revision,
    ingest_evidence,
    open_store,
    upgrade_database,
    verify_store,
)
from trustprobe.store.schema import Base

TABLES = {
    "agents",
    "alembic_version",
    "api_keys",
    "evidence",
    "organisations",
    "probe_runs",
    "rate_buckets",
    "reviews",
    "score_history",
    "score_totals",
}


def test_upgrade_creates_every_table_and_records_the_revision(database_url: str) -> None:
    engine = create_store_engine(database_url)
    try:
        assert current_revision(engine) is None
        assert upgrade_database(engine) == (None, head_revision())
        assert set(inspect(engine).get_table_names()) == TABLES
        assert current_revision(engine) == head_revision()
        # A second upgrade is a no-op.
        assert upgrade_database(engine) == (head_revision(), head_revision())
    finally:
        engine.dispose()


def test_migrations_match_the_models(database_url: str) -> None:
    engine = create_store_engine(database_url)
    try:
        upgrade_database(engine)
        with engine.connect() as connection:
            diffs = compare_metadata(MigrationContext.configure(connection), Base.metadata)
        assert diffs == []
    finally:
        engine.dispose()


def test_an_empty_database_is_refused_with_the_command_to_run(database_url: str) -> None:
    with pytest.raises(SchemaOutOfDateError, match="run `trustprobe db upgrade`"):
        open_store(database_url)


def test_sqlite_runs_in_wal_mode_with_foreign_keys(tmp_path) -> None:  # type: ignore[no-untyped-def]
    store = open_store(f"sqlite:///{tmp_path / 'deep' / 'store.db'}", upgrade=True)
    try:
        with store.engine.connect() as connection:
            assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
    finally:
        store.close()


@pytest.mark.parametrize(
    "url",
    ["sqlite://", "sqlite:///:memory:", "mysql://localhost/x", "not a url"],
    ids=["sqlite-no-path", "sqlite-memory", "mysql", "garbage"],
)
def test_unsupported_urls_are_refused(url: str) -> None:
    with pytest.raises(StoreError):
        create_store_engine(url)


def evidence_rows(database_url: str) -> list[tuple[Any, ...]]:
    engine = create_store_engine(database_url)
    try:
        with engine.connect() as connection:
            return [tuple(row) for row in connection.execute(text("SELECT * FROM evidence"))]
    finally:
        engine.dispose()


def evidence_references(database_url: str) -> set[str]:
    """The tables the evidence table's foreign keys refer to."""
    engine = create_store_engine(database_url)
    try:
        return {fk["referred_table"] for fk in inspect(engine).get_foreign_keys("evidence")}
    finally:
        engine.dispose()


def test_0007_drops_the_evidence_foreign_keys_and_keeps_every_row(database_url: str) -> None:
    store = open_store(database_url, upgrade=True)
    records = parsed(
        *(
            eval_record(f"e-{i}", agent, "accuracy", 60 + i, observed_at=NOW)
            for i, agent in enumerate(("alpha", "beta", "alpha"))
        )
    )
    ingest_evidence(store, records, organisation="acme", now=NOW, source=EvidenceSource.API)
    store.close()
    stored = evidence_rows(database_url)
    assert evidence_references(database_url) == {"probe_runs"}

    run_alembic(database_url, "downgrade", "0006_partial_source_index")
    assert evidence_references(database_url) == {"probe_runs", "organisations", "agents"}
    assert evidence_rows(database_url) == stored
    run_alembic(database_url, "upgrade", "head")
    assert evidence_references(database_url) == {"probe_runs"}
    assert evidence_rows(database_url) == stored

    store = open_store(database_url)
    try:
        more = parsed(eval_record("e-9", "gamma", "safety", 70, observed_at=NOW))
        assert (
            ingest_evidence(
                store, more, organisation="acme", now=NOW, source=EvidenceSource.API
            ).accepted
            == 1
        )
        assert verify_store(store).ok
    finally:
        store.close()
