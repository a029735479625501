from __future__ import annotations

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect

from trustprobe.store import (
    SchemaOutOfDateError,
    StoreError,
    create_store_engine,
    current_revision,
    head_revision,
    open_store,
    upgrade_database,
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
