"""Reads survive PostgreSQL dropping the service's connections between requests."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from sqlalchemy import create_engine, text

from tests.service.conftest import NOW, bearer
from tests.service.live import serve
from tests.store.databases import database, require_postgres
from tests.store.records import eval_record
from trustprobe.service import ServiceSettings
from trustprobe.store import Scope, TrustStore, create_api_key, open_store


@pytest.fixture
def named_store(tmp_path: Path) -> Iterator[tuple[TrustStore, str]]:
    """A PostgreSQL store whose connections carry a unique application name."""
    name = f"tp_reconnect_{uuid.uuid4().hex[:12]}"
    with database("postgresql", tmp_path) as url:
        store = open_store(f"{url}&application_name={name}", upgrade=True)
        yield store, name
        store.close()


def _terminate(application_name: str) -> int:
    """Terminate every backend serving ``application_name``; returns how many."""
    engine = create_engine(require_postgres())
    try:
        with engine.begin() as connection:
            return len(
                connection.execute(
                    text(
                        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                        " WHERE application_name = :name"
                    ),
                    {"name": application_name},
                ).all()
            )
    finally:
        engine.dispose()


@pytest.mark.parametrize("auth_cache_seconds", [0.0, 60.0], ids=["key-lookup", "cached-key"])
def test_reads_retry_on_a_fresh_connection_after_the_backend_is_terminated(
    named_store: tuple[TrustStore, str], auth_cache_seconds: float
) -> None:
    store, name = named_store
    key = create_api_key(store, organisation="acme", scopes=frozenset(Scope), now=NOW).key
    settings = ServiceSettings(auth_cache_seconds=auth_cache_seconds)
    with serve(store, settings) as url, httpx.Client(base_url=url, timeout=10) as client:
        record = eval_record("e1", "agent", "accuracy", 90, observed_at=NOW)
        assert client.post("/v1/evidence", json=[record], headers=bearer(key)).status_code == 200
        first = client.get("/v1/agents/agent/score", headers=bearer(key))
        assert first.status_code == 200
        for _ in range(3):
            # Every pooled connection is dead before the next request reaches the database:
            # the key lookup (when not cached) or the score read meets it first, and retries.
            assert _terminate(name) >= 1
            again = client.get("/v1/agents/agent/score", headers=bearer(key))
            assert again.status_code == 200, again.text
            assert again.content == first.content
