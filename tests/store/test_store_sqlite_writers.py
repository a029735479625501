"""SQLite writers wait for the write lock by trying again, and give up as SQLite does."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest
from sqlalchemy import Engine, text
from sqlalchemy.exc import OperationalError

from trustprobe.store import database
from trustprobe.store.database import create_store_engine, write_transaction


def _hold_write_lock(path: Path, seconds: float, held: threading.Event) -> None:
    other = sqlite3.connect(path, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        other.execute("INSERT INTO t VALUES (1)")
        held.set()
        time.sleep(seconds)
        other.execute("COMMIT")
    finally:
        other.close()


def _engine(tmp_path: Path) -> tuple[Path, Engine]:
    path = tmp_path / "store.db"
    engine = create_store_engine(f"sqlite:///{path}")
    with write_transaction(engine) as connection:
        connection.exec_driver_sql("CREATE TABLE t (x INTEGER)")
    return path, engine


def test_a_writer_waits_for_another_to_commit_then_writes(tmp_path: Path) -> None:
    path, engine = _engine(tmp_path)
    held = threading.Event()
    holder = threading.Thread(target=_hold_write_lock, args=(path, 0.3, held))
    holder.start()
    held.wait()
    with write_transaction(engine) as connection:
        # The other writer's row is visible: this transaction began after its commit.
        assert connection.execute(text("SELECT count(*) FROM t")).scalar_one() == 1
        connection.exec_driver_sql("INSERT INTO t VALUES (2)")
        timeout = connection.exec_driver_sql("PRAGMA busy_timeout").scalar_one()
    holder.join()
    assert timeout == database.SQLITE_BUSY_TIMEOUT_MS
    with engine.connect() as connection:
        assert connection.execute(text("SELECT x FROM t ORDER BY x")).scalars().all() == [1, 2]


def test_a_writer_gives_up_after_the_busy_timeout_with_sqlites_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, engine = _engine(tmp_path)
    monkeypatch.setattr(database, "SQLITE_BUSY_TIMEOUT_MS", 100)
    held = threading.Event()
    holder = threading.Thread(target=_hold_write_lock, args=(path, 1.0, held))
    holder.start()
    held.wait()
    try:
        began = time.monotonic()
        with (
            pytest.raises(OperationalError, match="database is locked"),
            write_transaction(engine),
        ):
            pass
        assert time.monotonic() - began < 1.0
    finally:
        holder.join()
    with engine.connect() as connection:
        # The connection's busy timeout (patched above) is back for its other statements.
        assert connection.exec_driver_sql("PRAGMA busy_timeout").scalar_one() == 100
