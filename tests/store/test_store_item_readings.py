"""Decayed sums from item columns equal the one-agent path's, bit for bit, at any age."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trustprobe.store.item_readings import AgentItems
from trustprobe.trust import (
    Dimension,
    TrustConfig,
    decayed_score,
    epoch_microseconds,
    item_reading,
    parse_evidence,
)
from trustprobe.trust.dimension_scores import combine_readings

NOW = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
DAY_US = 86_400_000_000
GRACE_US = 7 * DAY_US
DIMENSIONS = (Dimension.ACCURACY, Dimension.SAFETY)

# Ages around the places where the formula changes: the end of the grace period (to the
# microsecond) and the time an item's score reaches 0 (points lost = score), and far beyond.
ages = st.one_of(
    st.integers(0, 30 * DAY_US),
    st.integers(GRACE_US - 3, GRACE_US + 3),
    st.integers(0, epoch_microseconds(NOW)),  # back to 1970, the earliest observed_at
)
items = st.lists(
    st.tuples(
        st.sampled_from(DIMENSIONS),
        st.one_of(
            st.sampled_from([0.0, 0.001, 0.01, 0.5, 100.0]),
            st.floats(0, 100, allow_nan=False),
        ),
        st.none() | st.integers(1, 10_000),
        ages,
    ),
    min_size=1,
    max_size=30,
)
configs = st.builds(
    TrustConfig,
    decay_points_per_week=st.sampled_from([0.1, 1.0, 7.3]),
    decay_grace_days=st.sampled_from([0.0, 7.0, 1.5]),
)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(drawn=items, config=configs)
def test_decayed_sums_equal_the_one_agent_path(
    drawn: list[tuple[Dimension, float, int | None, int]], config: TrustConfig
) -> None:
    records = []
    for number, (dimension, score, total, age_us) in enumerate(drawn):
        record: dict[str, object] = {
            "id": f"e{number}",
            "agent_id": "a",
            "dimension": dimension.value,
            "kind": "eval",
            "observed_at": (NOW - timedelta(microseconds=age_us)).isoformat(),
        }
        if total is None:
            record["score"] = score
        else:
            record |= {"passed": round(total * score / 100.0), "total": total}
        records.append(parse_evidence(record))
    now_us = epoch_microseconds(NOW)
    columns = AgentItems.from_records(records, config)
    sums = columns.decayed_sums(DIMENSIONS, now_us=now_us, config=config)
    for dimension in DIMENSIONS:
        mine = [r for r in records if r.dimension == dimension]
        reading = combine_readings(
            ((item_reading(r, config), now_us - epoch_microseconds(r.observed_at)) for r in mine),
            config,
        )
        terms = []
        for r in mine:
            one = item_reading(r, config)
            age = now_us - epoch_microseconds(r.observed_at)
            terms.append(one.size * decayed_score(one.score, age, config))
        assert sums[dimension] == math.fsum(terms)  # 0.0 for a dimension without items
        assert columns.counts().get(dimension, 0) == len(mine)
        if reading is not None:  # the reading's score is Σ size·decayed / Σ size
            total = math.fsum(item_reading(r, config).size for r in mine)
            assert min(100.0, max(0.0, sums[dimension] / total)) == reading.score


def test_decayed_sums_refuse_an_item_after_now() -> None:
    record = parse_evidence(
        {"id": "e", "agent_id": "a", "dimension": "safety", "kind": "eval", "score": 50,
         "observed_at": (NOW + timedelta(minutes=1)).isoformat()}
    )  # fmt: skip
    columns = AgentItems.from_records([record], TrustConfig())
    with pytest.raises(ValueError, match="after now"):
        columns.decayed_sums(
            [Dimension.SAFETY], now_us=epoch_microseconds(NOW), config=TrustConfig()
        )
