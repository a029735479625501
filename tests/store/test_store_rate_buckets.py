"""Token buckets in the store: refill arithmetic, and one atomic take under concurrency."""

from __future__ import annotations

import uuid
from concurrent.futures import ThreadPoolExecutor

from sqlalchemy import func, select

from trustprobe.store import TrustStore
from trustprobe.store.rate_buckets import drop_full_buckets, take_token
from trustprobe.store.schema import RateBucketRow

T0 = 1_800_000_000.0


def _bucket() -> str:
    return f"key:{uuid.uuid4().hex}"


def test_a_bucket_allows_its_burst_then_refills_at_its_rate(store: TrustStore) -> None:
    bucket = _bucket()
    # burst 3, 0.5 token/s: three at once, then the fourth waits (1 - 0) / 0.5 = 2 s
    assert [take_token(store, bucket, rate=0.5, burst=3, now=T0) for _ in range(3)] == [None] * 3
    assert take_token(store, bucket, rate=0.5, burst=3, now=T0) == 2
    # 1 s later half a token has grown: still (1 - 0.5) / 0.5 = 1 s to wait
    assert take_token(store, bucket, rate=0.5, burst=3, now=T0 + 1) == 1
    # 2 s after the start a whole token is there, and spent
    assert take_token(store, bucket, rate=0.5, burst=3, now=T0 + 2) is None
    assert take_token(store, bucket, rate=0.5, burst=3, now=T0 + 2) == 2
    # an hour later the bucket is full again, never fuller than the burst
    later = T0 + 3600
    assert [take_token(store, bucket, rate=0.5, burst=3, now=later) for _ in range(4)] == [
        None,
        None,
        None,
        2,
    ]


def test_buckets_are_independent(store: TrustStore) -> None:
    first, second = _bucket(), _bucket()
    assert take_token(store, first, rate=1, burst=1, now=T0) is None
    assert take_token(store, first, rate=1, burst=1, now=T0) == 1
    assert take_token(store, second, rate=1, burst=1, now=T0) is None


def test_a_clock_behind_the_stored_time_refills_nothing(store: TrustStore) -> None:
    bucket = _bucket()
    assert take_token(store, bucket, rate=1, burst=1, now=T0 + 10) is None
    # Another worker's clock 5 s behind: no negative refill, no token either.
    assert take_token(store, bucket, rate=1, burst=1, now=T0 + 5) == 1
    assert take_token(store, bucket, rate=1, burst=1, now=T0 + 11) is None


def test_concurrent_takes_spend_exactly_the_burst(store: TrustStore) -> None:
    bucket = _bucket()
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(
            pool.map(lambda _: take_token(store, bucket, rate=0.001, burst=25, now=T0), range(80))
        )
    assert results.count(None) == 25
    # (1 - 0) / 0.001 = 1000 s for the next token
    assert set(results) - {None} == {1000}


def test_full_buckets_are_dropped_and_spent_ones_kept(store: TrustStore) -> None:
    spent, idle = _bucket(), _bucket()
    take_token(store, spent, rate=1, burst=10, now=T0 + 100)
    take_token(store, idle, rate=1, burst=10, now=T0)
    # idle is full again at T0 + 1; spent only at T0 + 101
    assert drop_full_buckets(store, now=T0 + 50) >= 1
    with store.engine.connect() as connection:
        left = connection.execute(
            select(RateBucketRow.bucket, func.count())
            .where(RateBucketRow.bucket.in_([spent, idle]))
            .group_by(RateBucketRow.bucket)
        ).all()
    assert [bucket for bucket, _ in left] == [spent]
