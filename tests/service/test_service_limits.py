"""The limits: token buckets in the process and in the store, and the authentication cache."""

from __future__ import annotations

import httpx
from sqlalchemy import text

from tests.service.conftest import NOW, bearer
from tests.service.live import serve
from trustprobe.service import PrincipalCache, RateLimiter, ServiceSettings, StoreRateLimiter
from trustprobe.store import Principal, Scope, TrustStore, create_api_key


class Ticks:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_token_bucket_refills_at_the_rate() -> None:
    ticks = Ticks()
    limiter = RateLimiter(rate=2.0, burst=3, clock=ticks)
    assert [limiter.acquire(1) for _ in range(3)] == [None, None, None]
    # Empty bucket: one token takes 1 / 2 = 0.5 s, announced as a whole second.
    assert limiter.acquire(1) == 1
    assert limiter.acquire(2) is None  # every key has its own bucket
    ticks.now = 0.5  # 0.5 s × 2 tokens/s = 1 token
    assert limiter.acquire(1) is None
    assert limiter.acquire(1) == 1
    ticks.now = 100.0  # refills to the burst, never beyond
    assert [limiter.acquire(1) for _ in range(4)] == [None, None, None, 1]


def test_store_buckets_behave_like_process_buckets_and_full_ones_are_dropped(
    store: TrustStore,
) -> None:
    ticks = Ticks()
    ticks.now = 1_800_000_000.0
    limiter = StoreRateLimiter(store, 2.0, 3, kind="key", clock=ticks, prune_seconds=60)
    other = StoreRateLimiter(store, 2.0, 3, kind="address", clock=ticks, prune_seconds=60)
    # A key of this test's own: the store (and its buckets) is shared by the module's tests.
    key = f"limits-{id(limiter)}"
    assert [limiter.acquire(key) for _ in range(3)] == [None, None, None]
    assert limiter.acquire(key) == 1  # (1 - 0) / 2 = 0.5 s, announced as a whole second
    assert other.acquire(key) is None  # another kind, another bucket
    ticks.now += 0.5
    assert limiter.acquire(key) is None
    names = text("SELECT count(*) FROM rate_buckets WHERE bucket IN (:key, :address)")
    count = names.bindparams(key=f"key:{key}", address=f"address:{key}")
    with store.engine.connect() as connection:
        assert connection.execute(count).scalar_one() == 2
    # An hour later both are full again: the first acquire past the minute drops them, then
    # takes a token from a new, full bucket.
    ticks.now += 3600
    assert limiter.acquire(key) is None
    with store.engine.connect() as connection:
        assert connection.execute(count).scalar_one() == 1


def test_slow_rates_announce_the_whole_wait() -> None:
    limiter = RateLimiter(rate=0.1, burst=1, clock=Ticks())
    assert limiter.acquire(7) is None
    assert limiter.acquire(7) == 10  # (1 - 0) / 0.1 = 10 s


def test_principal_cache_expires_entries() -> None:
    ticks = Ticks()
    cache = PrincipalCache(5.0, max_entries=2, clock=ticks)
    principal = Principal(1, "abc", 1, "acme", frozenset({Scope.READ}))
    cache.put("tp_a", principal)
    assert cache.get("tp_a") == principal
    assert cache.get("tp_b") is None
    ticks.now = 5.0  # 5 s after the lookup the entry is gone
    assert cache.get("tp_a") is None
    cache.put("k1", principal)
    cache.put("k2", principal)
    cache.put("k3", principal)  # over max_entries: the oldest goes
    assert cache.get("k1") is None
    assert cache.get("k3") == principal
    off = PrincipalCache(0.0)
    off.put("k", principal)
    assert off.get("k") is None


def test_revocation_is_immediate_without_the_cache(store: TrustStore) -> None:
    key = create_api_key(store, organisation="acme", scopes=frozenset({Scope.REVIEW}), now=NOW)
    with (
        serve(store, ServiceSettings(auth_cache_seconds=0)) as url,
        httpx.Client(base_url=url) as http,
    ):
        assert http.get("/v1/reviews", headers=bearer(key.key)).status_code == 200
        with store.engine.begin() as connection:
            connection.execute(
                text("UPDATE api_keys SET revoked_at = created_at WHERE prefix = :p"),
                {"p": key.info.prefix},
            )
        assert http.get("/v1/reviews", headers=bearer(key.key)).status_code == 401
