"""Real databases for the store and service suites: a SQLite file, or a fresh PostgreSQL schema.

PostgreSQL runs on 127.0.0.1:5432 with trust auth (database ``test``). Each test gets its own
uniquely named schema, dropped afterwards. Locally an unreachable server skips those tests with
the reason; under CI it fails them instead (``tests/guards.py``). Twin stores with the same
evidence, and their full history rows, let tests compare two ways of appending the same scores.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import create_engine, select, text
from sqlalchemy.exc import OperationalError

from tests.guards import unavailable
from trustprobe.store import EvidenceSource, TrustStore, ingest_evidence, open_store
from trustprobe.store.database import create_store_engine
from trustprobe.store.migration import MIGRATIONS
from trustprobe.store.schema import ReviewRow, TransitionRow
from trustprobe.trust import Evidence

POSTGRES_USERS = ("postgres", "root")
POSTGRES_HOST = "127.0.0.1:5432"
POSTGRES_DATABASE = "test"
BACKENDS = ("sqlite", "postgresql")


def _admin_url(user: str) -> str:
    return f"postgresql+psycopg://{user}@{POSTGRES_HOST}/{POSTGRES_DATABASE}"


@cache
def postgres_admin_url() -> str | None:
    """The first user that can connect, or ``None`` when the server is unreachable."""
    for user in POSTGRES_USERS:
        engine = create_engine(_admin_url(user), connect_args={"connect_timeout": 3})
        try:
            with engine.connect() as connection:
                connection.execute(text("SELECT 1"))
            return _admin_url(user)
        except OperationalError:
            continue
        finally:
            engine.dispose()
    return None


def require_postgres() -> str:
    """The admin URL; skip (locally) or fail (under CI) when PostgreSQL is unreachable."""
    url = postgres_admin_url()
    if url is None:
        reason = f"PostgreSQL is not reachable on {POSTGRES_HOST} (database {POSTGRES_DATABASE!r})"
        unavailable(reason)
    return url


@contextmanager
def postgres_schema() -> Iterator[str]:
    """A store URL confined to a new schema (via ``search_path``), dropped on exit."""
    admin = require_postgres()
    schema = f"tp_test_{uuid.uuid4().hex[:16]}"
    engine = create_engine(admin)
    try:
        with engine.begin() as connection:
            connection.execute(text(f'CREATE SCHEMA "{schema}"'))
        yield f"{admin}?options=-csearch_path%3D{schema}"
    finally:
        with engine.begin() as connection:
            connection.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        engine.dispose()


@contextmanager
def database(backend: str, directory: Path) -> Iterator[str]:
    """An empty database of ``backend``, as a store URL."""
    if backend == "sqlite":
        yield f"sqlite:///{directory / 'store.db'}"
    else:
        with postgres_schema() as url:
            yield url


@contextmanager
def filled_twin_stores(
    backend: str, directory: Path, fill: Callable[[TrustStore], object]
) -> Iterator[tuple[TrustStore, TrustStore]]:
    """Two new stores of ``backend``, each filled by ``fill`` the same way."""
    with ExitStack() as stack:
        stores = []
        for name in ("first", "second"):
            (directory / name).mkdir()
            url = stack.enter_context(database(backend, directory / name))
            store = open_store(url, upgrade=True)
            stack.callback(store.close)
            fill(store)
            stores.append(store)
        yield stores[0], stores[1]


@contextmanager
def twin_stores(
    backend: str,
    directory: Path,
    evidence: Sequence[Evidence],
    *,
    organisation: str,
    now: datetime,
) -> Iterator[tuple[TrustStore, TrustStore]]:
    """Two new stores of ``backend`` holding the same evidence, ingested identically."""

    def fill(store: TrustStore) -> None:
        ingest_evidence(
            store, evidence, organisation=organisation, now=now, source=EvidenceSource.API
        )

    with filled_twin_stores(backend, directory, fill) as stores:
        yield stores


def store_url(store: TrustStore) -> str:
    """The store's URL for a command line, password included."""
    return store.engine.url.render_as_string(hide_password=False)


def history_rows(store: TrustStore) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """Every column of every transition and review, in order: equal histories compare equal."""
    with store.engine.connect() as connection:
        transitions = connection.execute(select(TransitionRow).order_by(TransitionRow.seq))
        reviews = connection.execute(select(ReviewRow).order_by(ReviewRow.id))
        return [tuple(row) for row in transitions], [tuple(row) for row in reviews]


def run_alembic(url: str, action: str, revision: str) -> None:
    """Run alembic's ``upgrade`` or ``downgrade`` to ``revision`` on the store at ``url``."""
    engine = create_store_engine(url)
    try:
        with engine.begin() as connection:
            config = Config()
            config.set_main_option("script_location", str(MIGRATIONS))
            config.attributes["connection"] = connection
            getattr(command, action)(config, revision)
    finally:
        engine.dispose()
