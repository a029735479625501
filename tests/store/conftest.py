from __future__ import annotations

import shutil
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import text

from tests.store.databases import BACKENDS, database, postgres_schema
from trustprobe.store import TrustStore, open_store

NOW = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
# Dependants first. DELETE beats TRUNCATE on tables this small (TRUNCATE swaps files).
TABLES = (
    "score_totals",
    "rate_buckets",
    "reviews",
    "score_history",
    "evidence",
    "probe_runs",
    "agents",
    "api_keys",
    "organisations",
)
SEQUENCES = {
    "reviews": "id",
    "score_history": "seq",
    "evidence": "seq",
    "probe_runs": "id",
    "agents": "id",
    "api_keys": "id",
    "organisations": "id",
}


@pytest.fixture(params=BACKENDS)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty database, never migrated (for the migration and command tests)."""
    with database(request.param, tmp_path) as url:
        yield url


@pytest.fixture(scope="session")
def migrated_sqlite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A migrated SQLite file that tests copy (closing the store folds the WAL into it)."""
    path = tmp_path_factory.mktemp("migrated") / "template.db"
    open_store(f"sqlite:///{path}", upgrade=True).close()
    return path


@pytest.fixture(scope="session")
def migrated_postgresql() -> Iterator[str]:
    """A PostgreSQL schema migrated once for the session; tests truncate it."""
    with postgres_schema() as url:
        open_store(url, upgrade=True).close()
        yield url


# Migrating per test costs more than the tests themselves; the migrations have their own tests
# (test_store_migrations.py), so the other store tests start from an emptied migrated database.
@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[TrustStore]:
    if request.param == "sqlite":
        copy = tmp_path / "store.db"
        shutil.copyfile(request.getfixturevalue("migrated_sqlite"), copy)
        opened = open_store(f"sqlite:///{copy}")
    else:
        opened = open_store(request.getfixturevalue("migrated_postgresql"))
        with opened.engine.begin() as connection:
            for table in TABLES:
                connection.execute(text(f"DELETE FROM {table}"))
                if table in SEQUENCES:
                    connection.execute(
                        text(f"ALTER SEQUENCE {table}_{SEQUENCES[table]}_seq RESTART WITH 1")
                    )
    yield opened
    opened.close()
