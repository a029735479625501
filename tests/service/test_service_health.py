"""Liveness and readiness for orchestrators, on real SQLite and PostgreSQL stores."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from sqlalchemy import text

from tests.service.live import serve
from tests.store.databases import BACKENDS, database
from trustprobe.service import ServiceSettings
from trustprobe.store import TrustStore, create_store_engine, head_revision, open_store


@pytest.fixture(params=BACKENDS)
def fresh_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[TrustStore]:
    """A store of its own per test: some tests break its schema."""
    with database(request.param, tmp_path) as url:
        store = open_store(url, upgrade=True)
        yield store
        store.close()


def _get(store: TrustStore, path: str) -> httpx.Response:
    with serve(store, ServiceSettings()) as url:
        return httpx.get(url + path, timeout=10)


def test_ready_store_answers_200(fresh_store: TrustStore) -> None:
    response = _get(fresh_store, "/readyz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ready"
    assert body["store"] == {
        "reachable": True,
        "backend": fresh_store.backend,
        "revision": head_revision(),
        "head": head_revision(),
        "detail": None,
    }
    live = _get(fresh_store, "/healthz")
    assert (live.status_code, live.json()) == (200, {"status": "alive"})


def test_migrations_behind_answer_503(fresh_store: TrustStore) -> None:
    # What a new release sees before `trustprobe db upgrade` has run on the database.
    with fresh_store.engine.begin() as connection:
        connection.execute(text("UPDATE alembic_version SET version_num = '0000_older'"))
    response = _get(fresh_store, "/readyz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "not_ready"
    assert body["store"]["reachable"] is True
    assert body["store"]["revision"] == "0000_older"
    assert body["store"]["detail"] == (
        f"database at revision 0000_older, this version needs {head_revision()}: "
        "run `trustprobe db upgrade`"
    )
    assert _get(fresh_store, "/healthz").status_code == 200  # alive all the same


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_unreachable_store_answers_503_and_the_process_stays_alive() -> None:
    engine = create_store_engine(f"postgresql+psycopg://nobody@127.0.0.1:{_closed_port()}/test")
    store = TrustStore(engine)
    try:
        response = _get(store, "/readyz")
        assert response.status_code == 503
        store_state = response.json()["store"]
        assert store_state["reachable"] is False
        assert store_state["revision"] is None
        assert store_state["detail"] == "database unreachable (OperationalError)"
        assert "nobody" not in response.text  # no URL, user or password in the answer
        assert _get(store, "/healthz").status_code == 200
    finally:
        engine.dispose()


def test_health_routes_are_in_the_openapi_document(fresh_store: TrustStore) -> None:
    paths = _get(fresh_store, "/openapi.json").json()["paths"]
    assert set(paths["/healthz"]["get"]["responses"]) >= {"200"}
    assert set(paths["/readyz"]["get"]["responses"]) >= {"200", "503"}
    assert "security" not in paths["/readyz"]["get"]  # orchestrators hold no API key
