"""Request token buckets in the store, shared by every process that serves from it.

Each attempt is one ``INSERT ... ON CONFLICT DO UPDATE ... RETURNING`` statement: the database
refills the bucket for the time elapsed, takes a token if there is one, and says whether it did,
atomically (a row lock on PostgreSQL, the write lock of ``BEGIN IMMEDIATE`` on SQLite). Times
are wall-clock seconds passed in by the caller, so workers on several hosts need synchronised
clocks; a clock behind the stored time refills nothing rather than going negative.
"""

from __future__ import annotations

import math
from typing import Any

from sqlalchemy import Connection, Double, case, delete, literal
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import DBAPIError

from trustprobe.store.database import READ_ATTEMPTS, write_transaction
from trustprobe.store.schema import RateBucketRow
from trustprobe.store.store import TrustStore


def _take(connection: Connection, bucket: str, rate: float, burst: int, now: float) -> Any:
    dialect: Any = postgresql if connection.dialect.name == "postgresql" else sqlite
    row = RateBucketRow
    at: Any = literal(now, Double())
    elapsed = case((at > row.updated_at, at - row.updated_at), else_=0.0)
    grown = row.tokens + elapsed * rate
    refilled = case((grown > burst, float(burst)), else_=grown)
    has_token = refilled >= 1.0
    tokens = case((has_token, refilled - 1.0), else_=refilled)
    updated = case((at > row.updated_at, at), else_=row.updated_at)
    statement = (
        dialect.insert(row)
        .values(
            bucket=bucket,
            tokens=float(burst - 1),
            updated_at=now,
            full_at=now + 1.0 / rate,
            allowed=True,
        )
        .on_conflict_do_update(
            index_elements=[row.bucket],
            set_={
                "tokens": tokens,
                "updated_at": updated,
                "full_at": updated + (burst - tokens) / rate,
                "allowed": has_token,
            },
        )
        .returning(row.allowed, row.tokens)
    )
    return connection.execute(statement).one()


def take_token(
    store: TrustStore, bucket: str, *, rate: float, burst: int, now: float
) -> int | None:
    """Take one token from ``bucket``; ``None`` if one was there, else whole seconds to wait.

    A bucket starts full (``burst`` tokens) and refills at ``rate`` tokens per second. The
    attempt is retried once if the connection was dropped before it ran; should the first
    attempt have committed anyway, the client is charged twice, on the safe side.
    """
    for attempt in range(1, READ_ATTEMPTS + 1):
        try:
            with write_transaction(store.engine) as connection:
                if connection.dialect.name == "postgresql":
                    # A bucket lost in a crash only forgets some spending: no need to wait
                    # for the WAL flush on every request.
                    connection.exec_driver_sql("SET LOCAL synchronous_commit = off")
                allowed, tokens = _take(connection, bucket, rate, burst, now)
        except DBAPIError as exc:
            if not exc.connection_invalidated or attempt == READ_ATTEMPTS:
                raise
            continue
        return None if allowed else max(1, math.ceil((1.0 - tokens) / rate))
    raise AssertionError("unreachable: the last attempt returns or raises")


def drop_full_buckets(store: TrustStore, *, now: float) -> int:
    """Delete buckets that are full again by ``now`` (forgetting them changes nothing)."""
    with write_transaction(store.engine) as connection:
        result = connection.execute(delete(RateBucketRow).where(RateBucketRow.full_at <= now))
    return int(result.rowcount)
