from __future__ import annotations

import contextlib
from datetime import timedelta

from tests.store.conftest import NOW
from tests.store.records import eval_record, parsed
from trustprobe.store import EvidenceSource, TrustStore, canonical_score, ingest_evidence
from trustprobe.store.evidence_cache import EvidenceCache
from trustprobe.trust import Dimension

# Eight days old: decay (after a 7-day grace) has begun, so rescoring needs every item's
# reading, kept in the item cache, besides the running totals. One day of decay costs 0.1 / 7
# points.
OLD = NOW - timedelta(days=8)


def test_cache_keeps_newest_entries_and_evicts_least_used() -> None:
    records = tuple(
        parsed(*(eval_record(f"e{i}", "a", "accuracy", 50, observed_at=NOW) for i in range(3)))
    )
    cache = EvidenceCache(max_records=4)
    cache.update({1: (10, records[:2]), 2: (20, records[:2])})
    assert cache.get(1) == (10, records[:2])  # 1 is now the most recently used
    cache.update({1: (5, records[:1])})  # older than what is cached: ignored
    assert cache.get(1) == (10, records[:2])
    cache.update({3: (30, records[:1])})  # 5 records > 4: evict the least used (2)
    assert cache.get(2) is None
    assert cache.get(3) == (30, records[:1])


def test_a_second_process_sees_evidence_added_by_another(store: TrustStore) -> None:
    # Two store handles on one database stand for two processes with their own caches.
    other = TrustStore(store.engine)
    for minute, (handle, evidence_id, score) in enumerate(
        [(store, "e1", 80), (other, "e2", 60), (store, "e3", 70)]
    ):
        ingest_evidence(
            handle,
            parsed(eval_record(evidence_id, "alpha", "accuracy", score, observed_at=OLD)),
            organisation="acme",
            now=NOW + timedelta(minutes=minute),
            source=EvidenceSource.API,
        )
    # mean(80, 60, 70) − 0.014 = 69.986 → 700: the first handle's cache read e2 from the database
    assert canonical_score(store, organisation="acme", agent_id="alpha").score.composite == 700
    cached = store.item_cache.get(1)
    assert cached is not None and cached.seq == 3
    assert list(cached.dimensions[Dimension.ACCURACY].weighted) == [80.0, 60.0, 70.0]


def test_a_rolled_back_ingestion_leaves_the_cache_alone(store: TrustStore) -> None:
    ingest_evidence(
        store,
        parsed(eval_record("e1", "alpha", "accuracy", 80, observed_at=OLD)),
        organisation="acme",
        now=NOW,
        source=EvidenceSource.API,
    )
    before = store.item_cache.get(1)
    assert before is not None
    held = (before.seq, before.counts())
    broken = TrustStore(store.engine, weights=object(), item_cache=store.item_cache)  # type: ignore[arg-type]
    with contextlib.suppress(Exception):
        ingest_evidence(
            broken,
            parsed(eval_record("e2", "alpha", "accuracy", 10, observed_at=OLD)),
            organisation="acme",
            now=NOW,
            source=EvidenceSource.API,
        )
    after = store.item_cache.get(1)
    assert after is not None and (after.seq, after.counts()) == held
