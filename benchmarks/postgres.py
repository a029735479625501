"""A throw-away PostgreSQL schema for the benchmarks that measure the store on the real server."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import create_engine, text

POSTGRES = os.environ.get(
    "TRUSTPROBE_BENCH_POSTGRES", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)
"""The server and database the benchmarks make their schemas in (``TRUSTPROBE_BENCH_POSTGRES``)."""


def create_schema() -> tuple[str, str] | None:
    """A new empty schema: (database URL that uses it, schema name), or ``None`` (says why)."""
    engine = create_engine(POSTGRES, connect_args={"connect_timeout": 3})
    schema = f"tp_bench_{uuid.uuid4().hex[:12]}"
    try:
        with engine.begin() as connection:
            connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    except Exception as exc:
        print(f"postgresql skipped: {exc.__class__.__name__}: {exc}")
        return None
    finally:
        engine.dispose()
    return f"{POSTGRES}?options=-csearch_path%3D{schema}", schema


def drop_schemas(schemas: Iterable[str]) -> None:
    """Drop the benchmark's schemas and everything in them."""
    engine = create_engine(POSTGRES)
    with engine.begin() as connection:
        for schema in schemas:
            connection.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
    engine.dispose()


@contextmanager
def throwaway_database(backend: str, folder: Path, name: str) -> Iterator[str | None]:
    """A database URL for ``backend``: the SQLite file ``name``.db in ``folder``, or a new
    PostgreSQL schema dropped on exit; ``None`` if PostgreSQL cannot be reached (said why)."""
    if backend == "sqlite":
        yield f"sqlite:///{folder / name}.db"
        return
    found = create_schema()
    if found is None:
        yield None
        return
    url, schema = found
    try:
        yield url
    finally:
        drop_schemas([schema])
