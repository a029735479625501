"""Real databases for the store and service suites: a SQLite file, or a fresh PostgreSQL schema.

PostgreSQL runs on 127.0.0.1:5432 with trust auth (database ``test``). Each test gets its own
uniquely named schema, dropped afterwards. Locally an unreachable server skips those tests with
the reason; under ``CI=true`` it fails them instead.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.exc import OperationalError

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
        if os.environ.get("CI") == "true":
            pytest.fail(f"{reason}; CI must run the PostgreSQL tests")
        pytest.skip(reason)
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
