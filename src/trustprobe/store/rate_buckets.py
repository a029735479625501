"""Request token buckets in the store, shared by every process that serves from it.

Each attempt is one ``INSERT ... ON CONFLICT DO UPDATE ... RETURNING`` statement: the database
refills the bucket for the time elapsed, takes a token if there is one, and says whether it did,
atomically. On PostgreSQL the statement runs on its own (autocommit), so the bucket's row lock
is held only while the server executes it, never across a round trip to a busy client, and it
commits without waiting for the WAL flush (a bucket lost in a crash only forgets some
spending). On SQLite it runs in a ``BEGIN IMMEDIATE`` transaction, which takes the write lock
first. Times are wall-clock seconds passed in by the caller, so workers on several hosts need
synchronised clocks; a clock behind the stored time refills nothing rather than going negative.
"""

from __future__ import annotations

import math
from functools import cache
from typing import Any

from sqlalchemy import Boolean, Double, String, bindparam, case, delete, func, select, true
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import DBAPIError

from trustprobe.store.database import READ_ATTEMPTS, write_transaction
from trustprobe.store.schema import RateBucketRow
from trustprobe.store.store import TrustStore

_COLUMNS = ("bucket", "tokens", "updated_at", "full_at", "allowed")


@cache
def _take_statement(dialect_name: str) -> Any:
    """The take-a-token statement of a backend, built once (it runs on every request)."""
    row = RateBucketRow
    at: Any = bindparam("now", type_=Double())
    rate: Any = bindparam("rate", type_=Double())
    burst: Any = bindparam("burst", type_=Double())
    elapsed = case((at > row.updated_at, at - row.updated_at), else_=0.0)
    grown = row.tokens + elapsed * rate
    refilled = case((grown > burst, burst), else_=grown)
    has_token = refilled >= 1.0
    tokens = case((has_token, refilled - 1.0), else_=refilled)
    updated = case((at > row.updated_at, at), else_=row.updated_at)
    first = select(
        bindparam("bucket", type_=String()),
        burst - 1.0,
        at,
        at + 1.0 / rate,
        bindparam("allowed", True, type_=Boolean()),
    )
    if dialect_name == "postgresql":
        # SET LOCAL, inside the statement's own transaction: only this commit is asynchronous.
        async_commit = select(func.set_config("synchronous_commit", "off", True)).subquery()
        statement: Any = postgresql.insert(row).from_select(
            _COLUMNS, first.select_from(async_commit).where(true())
        )
    else:
        statement = sqlite.insert(row).from_select(_COLUMNS, first)
    return statement.on_conflict_do_update(
        index_elements=[row.bucket],
        set_={
            "tokens": tokens,
            "updated_at": updated,
            "full_at": updated + (burst - tokens) / rate,
            "allowed": has_token,
        },
    ).returning(row.allowed, row.tokens)


def _take(store: TrustStore, params: dict[str, Any]) -> Any:
    statement = _take_statement(store.backend)
    if store.backend == "postgresql":
        with store.engine.connect() as connection:
            connection.execution_options(isolation_level="AUTOCOMMIT")
            return connection.execute(statement, params).one()
    with write_transaction(store.engine) as connection:
        return connection.execute(statement, params).one()


def take_token(
    store: TrustStore, bucket: str, *, rate: float, burst: int, now: float
) -> int | None:
    """Take one token from ``bucket``; ``None`` if one was there, else whole seconds to wait.

    A bucket starts full (``burst`` tokens) and refills at ``rate`` tokens per second. The
    attempt is retried once if the connection was dropped before it ran; should the first
    attempt have committed anyway, the client is charged twice, on the safe side.
    """
    params = {"bucket": bucket, "rate": rate, "burst": float(burst), "now": now}
    for attempt in range(1, READ_ATTEMPTS + 1):
        try:
            allowed, tokens = _take(store, params)
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
